import ArgumentParser
import FamilySyncPostgres
import FamilySyncServer
import Foundation
import Logging

/// Where the database is: a URL, or the embedded default in a data directory.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "PostgreSQL URL as libpq reads it, postgres://user:pass@host:port/db?sslmode=disable|prefer|require|verify-full; host (a directory for a Unix socket), port, dbname, user, password, application_name and connect_timeout may be parameters too (docs/operations.md). Env: DATABASE_URL. Without one, FamilySync runs its own PostgreSQL in --data-dir.")
    var databaseURL: String?

    @Option(help: "Directory of the embedded database. Env: FAMILYSYNC_DATA_DIR. Default: .familysync under the working directory.")
    var dataDir: String?

    enum Source {
        case url(DatabaseURL)
        /// `isDefault`: neither flag nor environment named the directory.
        case embedded(dataDirectory: String, isDefault: Bool)
    }

    func resolve(_ environment: [String: String]) throws -> Source {
        if let text = databaseURL ?? environment["DATABASE_URL"].flatMap({ $0.isEmpty ? nil : $0 }) {
            do {
                return .url(try DatabaseURL(text))
            } catch {
                throw OperatorError.configuration(error.description)
            }
        }
        if let chosen = dataDir ?? environment["FAMILYSYNC_DATA_DIR"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return .embedded(dataDirectory: chosen, isDefault: false)
        }
        return .embedded(dataDirectory: ".familysync", isDefault: true)
    }
}

struct LoggingOptions: ParsableArguments {
    @Option(help: "trace, debug, info, notice, warning, error or critical. Env: FAMILYSYNC_LOG_LEVEL. Default: info.")
    var logLevel: String?

    @Option(help: "text or json (one object a line). Env: FAMILYSYNC_LOG_FORMAT. Default: text.")
    var logFormat: String?

    /// Configures swift-log for the process. Call once, before any logger is made.
    func bootstrap(_ environment: [String: String]) throws -> Logger {
        let levelText = logLevel ?? environment["FAMILYSYNC_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw OperatorError.configuration("log level must be trace, debug, info, notice, warning, error or critical, not '\(levelText)'")
        }
        let format = (logFormat ?? environment["FAMILYSYNC_LOG_FORMAT"] ?? "text").lowercased()
        switch format {
        case "text":
            LoggingSystem.bootstrap({ label, provider in
                var handler = TextLogHandler.standardError(label: label, metadataProvider: provider)
                handler.logLevel = level
                return handler
            }, metadataProvider: RequestLogMetadata.provider)
        case "json":
            LoggingSystem.bootstrap({ label, provider in
                var handler = JSONLogHandler(label: label, metadataProvider: provider)
                handler.logLevel = level
                return handler
            }, metadataProvider: RequestLogMetadata.provider)
        default:
            throw OperatorError.configuration("log format must be text or json, not '\(format)'")
        }
        return Logger(label: "familysync")
    }
}
