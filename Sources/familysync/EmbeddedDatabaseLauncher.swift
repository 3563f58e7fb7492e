import FamilySyncPostgres
import Logging

/// Opens the database the options name: the given URL, or the embedded cluster, started here.
enum EmbeddedDatabaseLauncher {
    static func open(_ source: DatabaseOptions.Source, logger: Logger) async throws -> (DatabaseURL, EmbeddedPostgres?) {
        switch source {
        case .url(let url):
            logger.info("using database", metadata: ["url": "\(url)"])
            return (url, nil)
        case .embedded(let dataDirectory):
            do {
                let binaries = try PostgresBinaries.find()
                let embedded = EmbeddedPostgres(configuration: .init(dataDirectory: dataDirectory), binaries: binaries, logger: logger)
                do {
                    return (try await embedded.start(), embedded)
                } catch {
                    await close(embedded, logger: logger)
                    throw error
                }
            } catch let error as EmbeddedPostgresError {
                throw error.isConfigurationProblem ? OperatorError.configuration(error.description) : OperatorError.runtime(error.description)
            }
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
