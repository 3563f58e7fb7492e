import FamilySyncPostgres
import Logging

/// Opens the database the options name: the given URL, or the embedded cluster, started here.
enum EmbeddedDatabaseLauncher {
    static func open(_ source: DatabaseOptions.Source, logger: Logger) async throws -> (DatabaseURL, EmbeddedPostgres?) {
        switch source {
        case .url(let url):
            logger.info("using database", metadata: ["url": "\(url)"])
            return (url, nil)
        case .embedded(let dataDirectory, let isDefault):
            do {
                let binaries = try PostgresBinaries.find()
                do {
                    return try await start(dataDirectory, binaries: binaries, logger: logger)
                } catch EmbeddedPostgresError.unreachableByPostgresUser(let path) where isDefault {
                    // The zero-configuration default must work from a checkout under /root too,
                    // which the postgres user cannot enter; an explicit --data-dir is not second-guessed.
                    logger.notice("the postgres user cannot reach the default data directory; using the system one instead", metadata: [
                        "default": "\(path)", "using": "\(fallbackDataDirectory)",
                    ])
                    return try await start(fallbackDataDirectory, binaries: binaries, logger: logger)
                }
            } catch let error as EmbeddedPostgresError {
                throw error.isConfigurationProblem ? OperatorError.configuration(error.description) : OperatorError.runtime(error.description)
            }
        }
    }

    /// Where the default goes when the working directory is out of the postgres user's reach.
    static let fallbackDataDirectory = "/var/lib/familysync"

    private static func start(_ dataDirectory: String, binaries: PostgresBinaries, logger: Logger) async throws -> (DatabaseURL, EmbeddedPostgres?) {
        let embedded = EmbeddedPostgres(configuration: .init(dataDirectory: dataDirectory), binaries: binaries, logger: logger)
        do {
            return (try await embedded.start(), embedded)
        } catch {
            await close(embedded, logger: logger)
            throw error
        }
    }

    static func close(_ embedded: EmbeddedPostgres?, logger: Logger) async {
        guard let embedded else { return }
        do {
            try await embedded.stop()
        } catch {
            logger.error("could not stop the embedded database", metadata: ["error": "\(error)"])
        }
    }
}
