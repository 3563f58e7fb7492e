extension DatabaseURL {
    /// The query parameters understood: libpq's names.
    static let parameterNames = ["host", "port", "dbname", "user", "password", "sslmode", "application_name", "connect_timeout"]
    static let connectTimeoutSeconds = 1...3600

    /// Parses `postgres[ql]://[user[:password]@][host][:port][/database][?name=value&…]` as libpq
    /// reads it. Each of `host`, `port`, `dbname`, `user` and `password` may also be a query
    /// parameter, and then wins over the URL's part, as in libpq. `host` an absolute path is
    /// the directory of a Unix socket, `<directory>/.s.PGSQL.<port>`. Unlike libpq, a parameter
    /// given twice or empty is refused, and so are a missing user (libpq would take the
    /// operating system's), a list of hosts, and `connect_timeout=0` (libpq: wait forever).
    /// Errors never quote the password.
    public init(_ string: String) throws(ParseError) {
        let uri = try PostgresURI(string)
        let parameters = try Self.parameters(uri.parameters)
        guard let username = parameters["user"] ?? uri.user else {
            throw ParseError(reason: "a user name is required (postgres://user@host/database, or user=)")
        }
        let pathDatabase = try Self.database(path: uri.encodedPath)
        guard let database = parameters["dbname"] ?? pathDatabase else {
            throw ParseError(reason: "a database name is required as the path (postgres://user@host/database), or dbname=")
        }
        // The port after the host is not quoted in errors: a password with an unencoded '/'
        // or '?' ends the authority early, and its first part is then read as the port.
        let port = if let text = parameters["port"] {
            try Self.number(text, named: "port", in: 1...65535)
        } else {
            try Self.number(uri.port ?? "5432", named: "the port after the host", in: 1...65535, quoted: false)
        }
        guard let host = parameters["host"] ?? uri.host else {
            throw ParseError(reason: "a host is required (postgres://user@host/database, or host=/socket/directory)")
        }
        if host.hasPrefix("/") {
            let directory = host.reversed().drop(while: { $0 == "/" }).reversed()
            endpoint = .unixSocket(path: "\(String(directory))/.s.PGSQL.\(port)")
        } else {
            guard !host.contains(",") else { throw PostgresURI.hostList }
            endpoint = .tcp(host: host, port: port)
        }
        self.username = username
        self.password = parameters["password"] ?? uri.password
        self.database = database
        if let mode = parameters["sslmode"] {
            guard let parsed = TLSMode(rawValue: mode) else {
                throw ParseError(reason: "sslmode must be disable, prefer, require or verify-full, not '\(mode)'")
            }
            tlsMode = parsed
        } else {
            tlsMode = .prefer
        }
        applicationName = parameters["application_name"]
        // libpq waits at least 2 seconds: 1 means 2 there, and so here.
        if let text = parameters["connect_timeout"] {
            connectTimeout = .seconds(max(2, try Self.number(text, named: "connect_timeout", in: Self.connectTimeoutSeconds, unit: " seconds")))
        } else {
            connectTimeout = nil
        }
    }

    private static func parameters(_ items: [(name: String, value: String)]) throws(ParseError) -> [String: String] {
        var parameters: [String: String] = [:]
        for (name, value) in items {
            guard parameterNames.contains(name) else {
                throw ParseError(reason: "unknown parameter '\(name)' (known: \(parameterNames.joined(separator: ", ")))")
            }
            guard parameters[name] == nil else { throw ParseError(reason: "parameter '\(name)' is given twice") }
            guard !value.isEmpty else { throw ParseError(reason: "parameter '\(name)' is empty") }
            parameters[name] = value
        }
        return parameters
    }

    /// The path's one name; leading slashes are dropped, as they always were here.
    private static func database(path: Substring?) throws(ParseError) -> String? {
        guard let path = path?.drop(while: { $0 == "/" }), !path.isEmpty else { return nil }
        guard !path.contains("/") else {
            throw ParseError(reason: "a database name is required as the path, one name (a '/' in it is written %2F)")
        }
        return try PostgresURI.decode(path, "the database name")
    }

    private static func number(
        _ text: String, named name: String, in range: ClosedRange<Int>, unit: String = "", quoted: Bool = true
    ) throws(ParseError) -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw ParseError(reason: "\(name) must be a whole number" + (quoted ? ", not '\(text)'" : ""))
        }
        guard let value = Int(text), range.contains(value) else {
            throw ParseError(reason: "\(name)\(quoted ? " " + text : "") is out of range (\(range.lowerBound) to \(range.upperBound)\(unit))")
        }
        return value
    }
}
