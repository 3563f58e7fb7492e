import Foundation
import NIOSSL
import PostgresNIO

/// A `postgres://user:pass@host:port/db?sslmode=…` URL, parsed into a PostgresNIO configuration.
///
/// `sslmode` takes libpq's names for the three modes the server supports: `disable` (TLS off),
/// `prefer` (the default, as libpq's) and `require`; `verify-full` also checks the certificate.
/// A `host` query parameter that is a directory (`?host=/var/run/postgresql`) selects a Unix socket.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable, Equatable {
        case disable, prefer, require
        case verifyFull = "verify-full"
    }

    public enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int)
        case unixSocket(path: String)
    }

    public var endpoint: Endpoint
    public var username: String
    public var password: String?
    public var database: String
    public var tlsMode: TLSMode

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { "malformed database URL: \(reason)" }
    }

    public init(endpoint: Endpoint, username: String, password: String?, database: String, tlsMode: TLSMode) {
        self.endpoint = endpoint
        self.username = username
        self.password = password
        self.database = database
        self.tlsMode = tlsMode
    }

    public init(_ string: String) throws(ParseError) {
        guard let components = URLComponents(string: string), let scheme = components.scheme else {
            throw ParseError(reason: "expected postgres://user:password@host:port/database")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw ParseError(reason: "scheme must be postgres:// or postgresql://, not \(scheme)://")
        }
        guard let user = components.user, !user.isEmpty else {
            throw ParseError(reason: "a user name is required (postgres://user@host/database)")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw ParseError(reason: "a database name is required as the path (postgres://user@host/database)")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            query[item.name] = item.value ?? ""
        }
        let unknown = Set(query.keys).subtracting(["sslmode", "host"])
        if let name = unknown.sorted().first {
            throw ParseError(reason: "unknown parameter '\(name)' (known: sslmode, host)")
        }
        let tlsMode: TLSMode
        if let mode = query["sslmode"] {
            guard let parsed = TLSMode(rawValue: mode) else {
                throw ParseError(reason: "sslmode must be disable, prefer, require or verify-full, not '\(mode)'")
            }
            tlsMode = parsed
        } else {
            tlsMode = .prefer
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else {
            throw ParseError(reason: "port \(port) is out of range")
        }
        if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
            endpoint = .unixSocket(path: "\(socketDirectory)/.s.PGSQL.\(port)")
        } else {
            guard let host = components.host, !host.isEmpty else {
                throw ParseError(reason: "a host is required (postgres://user@host/database)")
            }
            endpoint = .tcp(host: host, port: port)
        }
        self.username = user
        self.password = components.password
        self.database = database
        self.tlsMode = tlsMode
    }

    /// The URL without its password, for logs.
    public var description: String {
        switch endpoint {
        case .tcp(let host, let port):
            return "postgres://\(username)@\(host):\(port)/\(database)?sslmode=\(tlsMode.rawValue)"
        case .unixSocket(let path):
            return "postgres://\(username)@/\(database) (socket \(path))"
        }
    }

    /// The URL as a string that parses back to this value, password included: for handing the
    /// database to another process, never for logs.
    public var connectionString: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = username
        components.password = password
        components.path = "/" + database
        var query = [URLQueryItem(name: "sslmode", value: tlsMode.rawValue)]
        switch endpoint {
        case .tcp(let host, let port):
            components.host = host
            components.port = port
        case .unixSocket(let path):
            let suffix = "/.s.PGSQL."
            let range = path.range(of: suffix, options: .backwards)
            components.host = ""
            components.port = range.flatMap { Int(path[$0.upperBound...]) }
            query.append(URLQueryItem(name: "host", value: range.map { String(path[..<$0.lowerBound]) } ?? path))
        }
        components.queryItems = query
        return components.string ?? ""
    }

    /// The serving pool: `connections` held open (see `holdConnections`).
    public func servingPoolConfiguration(connections: Int = PostgresClient.defaultConnections) -> PostgresClient.Configuration {
        var configuration = clientConfiguration()
        configuration.holdConnections(connections)
        return configuration
    }

    public func clientConfiguration() -> PostgresClient.Configuration {
        let configuration: PostgresClient.Configuration
        switch endpoint {
        case .unixSocket(let path):
            configuration = .init(unixSocketPath: path, username: username, password: password, database: database)
        case .tcp(let host, let port):
            let clientTLS: PostgresClient.Configuration.TLS
            switch tls {
            case .disable: clientTLS = .disable
            case .prefer(let configuration): clientTLS = .prefer(configuration)
            case .require(let configuration): clientTLS = .require(configuration)
            }
            configuration = .init(host: host, port: port, username: username, password: password, database: database, tls: clientTLS)
        }
        return configuration
    }

    /// For a single connection of its own (the change listener's), outside the client's pool.
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        switch endpoint {
        case .unixSocket(let path):
            return .init(unixSocketPath: path, username: username, password: password, database: database)
        case .tcp(let host, let port):
            let connectionTLS: PostgresConnection.Configuration.TLS
            switch tls {
            case .disable: connectionTLS = .disable
            case .prefer(let configuration): connectionTLS = .prefer(try NIOSSLContext(configuration: configuration))
            case .require(let configuration): connectionTLS = .require(try NIOSSLContext(configuration: configuration))
            }
            return .init(host: host, port: port, username: username, password: password, database: database, tls: connectionTLS)
        }
    }

    private enum TLSChoice {
        case disable
        case prefer(TLSConfiguration)
        case require(TLSConfiguration)
    }

    private var tls: TLSChoice {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch tlsMode {
        case .disable:
            return .disable
        case .prefer:
            configuration.certificateVerification = .none
            return .prefer(configuration)
        case .require:
            configuration.certificateVerification = .none
            return .require(configuration)
        case .verifyFull:
            return .require(configuration)
        }
    }
}
