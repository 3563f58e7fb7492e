import FamilySyncCore

/// What the HTTP side of the server is told by its operator.
public struct ServerConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var limits: Limits

    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 8080

    public init(host: String = defaultHost, port: Int = defaultPort, limits: Limits = Limits()) {
        self.host = host
        self.port = port
        self.limits = limits
    }
}
