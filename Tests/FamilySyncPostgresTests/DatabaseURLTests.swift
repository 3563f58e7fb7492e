@testable import FamilySyncPostgres
import FamilySyncTestSupport
import NIOCore
import PostgresNIO
import Testing

@Suite struct DatabaseURLTests {
    struct Accepted: Sendable, CustomTestStringConvertible {
        var text: String
        var expected: DatabaseURL
        var testDescription: String { text }

        init(
            _ text: String, _ endpoint: DatabaseURL.Endpoint, user: String = "u", password: String? = nil, database: String = "d",
            tls: DatabaseURL.TLSMode = .prefer, applicationName: String? = nil, connectTimeout: Duration? = nil
        ) {
            self.text = text
            expected = DatabaseURL(
                endpoint: endpoint, username: user, password: password, database: database, tlsMode: tls,
                applicationName: applicationName, connectTimeout: connectTimeout
            )
        }
    }

    static func socket(_ directory: String, _ port: Int = 5432) -> DatabaseURL.Endpoint {
        .unixSocket(path: "\(directory)/.s.PGSQL.\(port)")
    }

    static let h = DatabaseURL.Endpoint.tcp(host: "h", port: 5432)

    static let accepted: [Accepted] = [
        // The forms accepted before libpq's parameters, with the same meaning.
        .init("postgres://fam:s3cret@db.example:6543/familysync?sslmode=require", .tcp(host: "db.example", port: 6543), user: "fam", password: "s3cret", database: "familysync", tls: .require),
        .init("postgresql://fam@localhost/db", .tcp(host: "localhost", port: 5432), user: "fam", database: "db"),
        .init("postgres://u@h/d?sslmode=disable", h, tls: .disable),
        .init("postgres://u@h/d?sslmode=prefer", h),
        .init("postgres://u@h/d?sslmode=verify-full", h, tls: .verifyFull),
        .init("postgres://u@/d?host=/var/run/postgresql", socket("/var/run/postgresql")),
        .init("postgres://u@/d?host=/tmp/some%20dir", socket("/tmp/some dir")),
        .init("postgres://u@:5433/d?sslmode=disable&host=/tmp/pg", socket("/tmp/pg", 5433), tls: .disable),
        .init("postgres://u@h/d?host=/var/run/postgresql", socket("/var/run/postgresql")),
        .init("postgres://u%40x:p%3Aw@h/d%20b", h, user: "u@x", password: "p:w", database: "d b"),
        .init("postgres://u:p@ss@h/d", h, password: "p@ss"),
        .init("postgres://u@h//d", h),
        .init("postgres://u@h:05432/d", h),
        .init("postgres://u@h:/d", h),
        // libpq's parameters; each wins over the URL's part.
        .init("postgresql:///familysync?host=/run/postgresql&port=5433&user=app", socket("/run/postgresql", 5433), user: "app", database: "familysync"),
        .init("postgresql:///familysync?host=%2Frun%2Fpostgresql%2F&user=app", socket("/run/postgresql"), user: "app", database: "familysync"),
        .init("postgresql://h/d?user=app&password=s3cret", h, user: "app", password: "s3cret"),
        .init("postgresql://u@h?dbname=d", h),
        .init("postgresql://u@h/other?dbname=d", h),
        .init("postgresql://u:old@h1:1111/x?host=h2&port=2222&user=v&password=new&dbname=d", .tcp(host: "h2", port: 2222), user: "v", password: "new"),
        .init("postgresql://u@h/d?port=6543", .tcp(host: "h", port: 6543)),
        .init("postgresql://u@h/d?host=db.internal", .tcp(host: "db.internal", port: 5432)),
        .init("postgresql://u@/?host=/&dbname=d&port=1", socket("", 1)),
        .init("postgresql://u@h/d?application_name=familysync%20eu&connect_timeout=5", h, applicationName: "familysync eu", connectTimeout: .seconds(5)),
        .init("postgresql://u@h/d?application_name=a+b", h, applicationName: "a+b"),
        .init("postgresql://u@h/d?connect_timeout=1", h, connectTimeout: .seconds(2)),
        .init("postgresql://u@h/d?connect_timeout=3600", h, connectTimeout: .seconds(3600)),
        .init("postgresql://u@h/d?sslmode=require&", h, tls: .require),
        .init("postgresql://u@h/d?ssl%6Dode=require", h, tls: .require),
        .init("postgresql://u@[::1]:6543/d", .tcp(host: "::1", port: 6543)),
        .init("postgresql://u@[fe80::1%25eth0]/d", .tcp(host: "fe80::1%eth0", port: 5432)),
        .init("postgresql://u@h/a%2Fb", h, database: "a/b"),
        .init("postgresql://u:pa#ss@h/d", h, password: "pa#ss"),
        .init("postgresql://u@h/d?dbname=x%C3%A9", h, database: "xé"),
        .init("postgresql://app@db?dbname=family%2Fsync", .tcp(host: "db", port: 5432), user: "app", database: "family/sync"),
    ]

    @Test(arguments: accepted)
    func acceptsEachForm(_ form: Accepted) throws {
        #expect(try DatabaseURL(form.text) == form.expected)
    }

    @Test(arguments: accepted)
    func connectionStringParsesBackToTheSameURL(_ form: Accepted) throws {
        #expect(try DatabaseURL(form.expected.connectionString) == form.expected)
    }

    @Test(arguments: accepted.filter { $0.expected.password != nil })
    func descriptionHidesThePassword(_ form: Accepted) throws {
        let url = try DatabaseURL(form.text)
        #expect(!url.description.contains(try #require(url.password)))
    }

    @Test func descriptionSaysWhereAndHow() throws {
        #expect(
            try DatabaseURL("postgresql://u:pw@h/d?application_name=fs&connect_timeout=5").description
                == "postgres://u@h:5432/d?sslmode=prefer&application_name=fs&connect_timeout=5"
        )
        #expect(try DatabaseURL("postgresql://u@[::1]/d").description == "postgres://u@[::1]:5432/d?sslmode=prefer")
        #expect(try DatabaseURL("postgres://u@/d?host=/run/pg&port=5433").description == "postgres://u@/d (socket /run/pg/.s.PGSQL.5433)")
        #expect(
            try DatabaseURL("postgres://u@/d?host=/run/pg&application_name=fs").description
                == "postgres://u@/d?application_name=fs (socket /run/pg/.s.PGSQL.5432)"
        )
    }

    @Test func connectionStringIsLibpqs() throws {
        #expect(
            try DatabaseURL("postgresql:///d?host=/run/my%20pg&port=5433&user=a%26b&password=p%40ss&application_name=x%3Dy&connect_timeout=7").connectionString
                == "postgres://a%26b:p%40ss@/d?host=/run/my%20pg&port=5433&sslmode=prefer&application_name=x%3Dy&connect_timeout=7"
        )
        #expect(try DatabaseURL("postgresql://u@[::1]:6543/d?sslmode=disable").connectionString == "postgres://u@[::1]:6543/d?sslmode=disable")
    }

    @Test func applicationNameAndConnectTimeoutReachPostgresNIO() throws {
        let url = try DatabaseURL("postgresql://u@h/d?application_name=familysync-eu&connect_timeout=7")
        let client = url.clientConfiguration()
        #expect(client.options.connectTimeout == .seconds(7))
        #expect(client.options.additionalStartupParameters.map { "\($0)=\($1)" } == ["application_name=familysync-eu"])
        let connection = try url.connectionConfiguration()
        #expect(connection.options.connectTimeout == .seconds(7))
        #expect(connection.options.additionalStartupParameters.map { "\($0)=\($1)" } == ["application_name=familysync-eu"])

        let plain = try DatabaseURL("postgresql://u@/d?host=/run/pg")
        #expect(plain.clientConfiguration().options.connectTimeout == PostgresClient.Configuration.Options().connectTimeout)
        #expect(plain.clientConfiguration().options.additionalStartupParameters.isEmpty)
        #expect(plain.clientConfiguration().unixSocketPath == "/run/pg/.s.PGSQL.5432")
        #expect(try plain.connectionConfiguration().options.connectTimeout == PostgresConnection.Configuration.Options().connectTimeout)
    }

    static let refused: [(String, String)] = [
        ("not a url at all", "expected postgres://"),
        ("host=h dbname=d user=u", "expected postgres://"),
        ("mysql://u@h/d", "scheme must be postgres"),
        ("POSTGRES://u@h/d", "scheme must be postgres"),
        ("postgres://h/d", "a user name is required"),
        ("postgresql:///familysync?host=/run/postgresql&port=5433", "a user name is required"),
        ("postgres://u@h", "a database name is required"),
        ("postgres://u@h/", "a database name is required"),
        ("postgres://u@h/a/b", "one name (a '/' in it is written %2F)"),
        ("postgres://u@h/d?sslmode=sometimes", "sslmode must be disable, prefer, require or verify-full, not 'sometimes'"),
        ("postgres://u@h/d?sslmode=verify-ca", "sslmode must be disable, prefer, require or verify-full, not 'verify-ca'"),
        ("postgres://u@h/d?timeout=3", "unknown parameter 'timeout' (known: host, port, dbname, user"),
        ("postgres://u@h/d?hostaddr=127.0.0.1", "unknown parameter 'hostaddr'"),
        ("postgres://u@h/d?SSLMODE=disable", "unknown parameter 'SSLMODE'"),
        ("postgres://u@h/d?ssl=true", "unknown parameter 'ssl'"),
        ("postgres://u@h/d?sslmode=allow", "sslmode must be disable, prefer, require or verify-full, not 'allow'"),
        ("postgres://u@h:0/d", "the port after the host is out of range (1 to 65535)"),
        ("postgres://u@h:65536/d", "the port after the host is out of range (1 to 65535)"),
        ("postgres://u@h:abc/d", "the port after the host must be a whole number"),
        ("postgres://u@h/d?port=abc", "port must be a whole number, not 'abc'"),
        ("postgres://u@h/d?port=-1", "port must be a whole number, not '-1'"),
        ("postgres://u@h/d?port=%2B7", "port must be a whole number, not '+7'"),
        ("postgres://u@h/d?port=0", "port 0 is out of range (1 to 65535)"),
        ("postgres://u@h/d?port=99999999999999999999", "port 99999999999999999999 is out of range"),
        ("postgres://u@/d", "a host is required"),
        ("postgres://u@/d?port=5433", "a host is required"),
        ("postgres://u@h/d?port=1&port=2", "parameter 'port' is given twice"),
        ("postgres://u@h/d?sslmode=disable&sslmode=disable", "parameter 'sslmode' is given twice"),
        ("postgres://u@h/d?host=", "parameter 'host' is empty"),
        ("postgres://u@h/d?user=", "parameter 'user' is empty"),
        ("postgres://u@h/d?sslmode", "parameter 'sslmode' has no '='"),
        ("postgres://u@h/d?application_name=a=b", "parameter 'application_name' has a second '='"),
        ("postgres://u@h/d?port=1&&sslmode=disable", "an empty parameter"),
        ("postgres://u@h/d?&port=1", "an empty parameter"),
        ("postgres://u@h1,h2/d", "one host only"),
        ("postgres://u@h1:1,h2:2/d", "one host only"),
        ("postgres://u@h/d?host=h1,h2", "one host only"),
        ("postgres://u@h/d?connect_timeout=0", "connect_timeout 0 is out of range (1 to 3600 seconds)"),
        ("postgres://u@h/d?connect_timeout=3601", "connect_timeout 3601 is out of range (1 to 3600 seconds)"),
        ("postgres://u@h/d?connect_timeout=2.5", "connect_timeout must be a whole number, not '2.5'"),
        ("postgres://u@h/d?connect_timeout=-1", "connect_timeout must be a whole number, not '-1'"),
        ("postgres://u@[::1/d", "an IPv6 host needs its closing ']'"),
        ("postgres://u@[::1]x/d", "expected ':port' after the IPv6 host's ']'"),
        ("postgres://u@h/d%ZZ", "the database name has a '%' not followed by two hex digits"),
        ("postgres://u@h/d?dbname=x%0", "parameter 'dbname' has a '%' not followed by two hex digits"),
        ("postgres://u@h/d?user=a%00b", "parameter 'user' holds %00"),
        ("postgres://u@h/d%FF", "the database name is not UTF-8"),
        ("postgres://u@h%zz/d", "the host has a '%'"),
        ("postgres://u%zz@h/d", "the user name has a '%'"),
    ]

    @Test(arguments: refused)
    func refusesMalformedURLs(_ text: String, _ reason: String) {
        #expect {
            try DatabaseURL(text)
        } throws: { error in
            (error as? DatabaseURL.ParseError)?.description.contains(reason) == true
        }
    }

    /// Not even a password written wrong, nor one beside another mistake.
    @Test(arguments: [
        "postgres://u:s3cret%zz@h/d",
        "postgres://u:s3cret%00@h/d",
        "postgres://u:s3cret%FF@h/d",
        "postgres://u@h/d?password=s3cret%",
        "postgres://u@h/d?password=s3cret=",
        "postgres://u@h/d?password=s3cret&password=s3cret",
        "postgres://u:s3cret@h:99999/d",
        "postgres://u:s3cret/x@h/d",
        "postgres://u:s3cret?x@h/d",
        "postgres://u:s3cret@h/d?sslmode=bogus",
        "postgres://:s3cret@h/d",
    ])
    func refusalsNeverQuoteThePassword(_ text: String) {
        let error = #expect(throws: DatabaseURL.ParseError.self) { try DatabaseURL(text) }
        #expect(error.map { !$0.description.contains("s3cret") } == true, "\(error?.description ?? "")")
    }

    /// The issue's URL, as libpq writes it, against a real PostgreSQL: the pool's configuration
    /// and the listener's both reach the socket, as the user, with the application name.
    @Test(.notOnCitus("reaches the embedded PostgreSQL's socket; the first pass runs it"))
    func libpqsFormReachesTheDatabase() async throws {
        let database = try await TestPostgres.shared.makeDatabase(migrated: false)
        let embedded = try await TestPostgres.shared.embedded()
        let url = try DatabaseURL(
            "postgresql:///\(database.database)?host=\(PostgresURI.encode(embedded.socketDirectory, keeping: [UInt8(ascii: "/")]))"
                + "&port=\(EmbeddedPostgres.port)&user=\(EmbeddedPostgres.username)&application_name=familysync-url-test&connect_timeout=5"
        )
        #expect(url.endpoint == database.endpoint)
        let query: PostgresQuery = "SELECT current_setting('application_name'), current_user::text, current_database()::text"
        @Sendable func values(on connection: PostgresConnection) async throws -> [String] {
            try await connection.rows(query, logger: testLogger).decode((String, String, String).self).flatMap { [$0, $1, $2] }
        }
        let client = PostgresClient(configuration: url.clientConfiguration(), backgroundLogger: testLogger)
        let fromPool = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await client.withConnection(values(on:))
        }
        #expect(fromPool == ["familysync-url-test", EmbeddedPostgres.username, database.database])

        let connection = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: 1, logger: testLogger)
        let fromConnection = try await values(on: connection)
        try await connection.close()
        #expect(fromConnection == ["familysync-url-test", EmbeddedPostgres.username, database.database])
    }
}
