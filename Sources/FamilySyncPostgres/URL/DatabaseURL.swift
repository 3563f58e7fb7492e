/// A PostgreSQL connection URL as libpq writes one, parsed (`init(_:)`, in DatabaseURL+parsing)
/// into what a PostgresNIO configuration needs (DatabaseURL+PostgresNIO).
///
/// `sslmode` takes libpq's names for the modes the server supports: `disable` (TLS off),
/// `prefer` (the default, as libpq's) and `require`; `verify-full` also checks the certificate.
/// `host` an absolute path (`?host=/var/run/postgresql`) selects the Unix socket in that directory.
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
    /// `application_name`, sent in each connection's startup message.
    public var applicationName: String?
    /// `connect_timeout`; nil keeps PostgresNIO's (10 seconds).
    public var connectTimeout: Duration?

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { "malformed database URL: \(reason)" }
    }

    public init(
        endpoint: Endpoint, username: String, password: String?, database: String, tlsMode: TLSMode,
        applicationName: String? = nil, connectTimeout: Duration? = nil
    ) {
        self.endpoint = endpoint
        self.username = username
        self.password = password
        self.database = database
        self.tlsMode = tlsMode
        self.applicationName = applicationName
        self.connectTimeout = connectTimeout
    }

    /// The URL without its password, for logs.
    public var description: String {
        let extra = optionalParameters.map { "&\($0.name)=\($0.value)" }.joined()
        switch endpoint {
        case .tcp(let host, let port):
            return "postgres://\(username)@\(Self.authorityHost(host)):\(port)/\(database)?sslmode=\(tlsMode.rawValue)\(extra)"
        case .unixSocket(let path):
            return "postgres://\(username)@/\(database)\(extra.isEmpty ? "" : "?" + extra.dropFirst()) (socket \(path))"
        }
    }

    /// The URL as a string that parses back to this value, password included, and that libpq
    /// reads the same: for handing the database to another process, never for logs.
    public var connectionString: String {
        var text = "postgres://" + PostgresURI.encode(username)
        if let password { text += ":" + PostgresURI.encode(password) }
        text += "@"
        var parameters: [(name: String, value: String)] = []
        switch endpoint {
        case .tcp(let host, let port):
            text += Self.authorityHost(PostgresURI.encode(host, keeping: [UInt8(ascii: ":")])) + ":\(port)"
        case .unixSocket(let path):
            let suffix = "/.s.PGSQL."
            if let range = path.ranges(of: suffix).last, let port = Int(path[range.upperBound...]) {
                parameters = [("host", range.lowerBound == path.startIndex ? "/" : String(path[..<range.lowerBound])), ("port", "\(port)")]
            } else {
                parameters = [("host", path)]
            }
        }
        text += "/" + PostgresURI.encode(database)
        parameters += [("sslmode", tlsMode.rawValue)] + optionalParameters
        return text + "?" + parameters.map { "\($0.name)=\(PostgresURI.encode($0.value, keeping: [UInt8(ascii: "/")]))" }.joined(separator: "&")
    }

    private var optionalParameters: [(name: String, value: String)] {
        var parameters: [(name: String, value: String)] = []
        if let applicationName { parameters.append(("application_name", applicationName)) }
        if let connectTimeout { parameters.append(("connect_timeout", "\(connectTimeout.components.seconds)")) }
        return parameters
    }

    /// An IPv6 address in brackets.
    private static func authorityHost(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}
