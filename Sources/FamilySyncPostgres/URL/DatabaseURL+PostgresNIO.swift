import Logging
import NIOCore
import NIOSSL
import PostgresNIO

extension DatabaseURL {
    /// The serving pool: up to `connections`, opened as requests need them.
    public func servingPool(connections: Int = LoopBoundPool.defaultLimit, logger: Logger) throws -> LoopBoundPool {
        LoopBoundPool(configuration: try connectionConfiguration(), limit: connections, logger: logger)
    }

    /// For PostgresNIO's own pool: the tools' and tests' connections outside the serving pool.
    public func clientConfiguration() -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
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
        if let connectTimeout { configuration.options.connectTimeout = connectTimeout }
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    /// For a single connection of its own (the change listener's), outside the client's pool.
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        switch endpoint {
        case .unixSocket(let path):
            configuration = .init(unixSocketPath: path, username: username, password: password, database: database)
        case .tcp(let host, let port):
            let connectionTLS: PostgresConnection.Configuration.TLS
            switch tls {
            case .disable: connectionTLS = .disable
            case .prefer(let configuration): connectionTLS = .prefer(try NIOSSLContext(configuration: configuration))
            case .require(let configuration): connectionTLS = .require(try NIOSSLContext(configuration: configuration))
            }
            configuration = .init(host: host, port: port, username: username, password: password, database: database, tls: connectionTLS)
        }
        if let connectTimeout { configuration.options.connectTimeout = TimeAmount(connectTimeout) }
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    /// PostgresNIO (1.33) has no setting of its own for `application_name`: it goes in the
    /// startup message, as libpq sends it.
    private var startupParameters: [(String, String)] {
        applicationName.map { [("application_name", $0)] } ?? []
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
