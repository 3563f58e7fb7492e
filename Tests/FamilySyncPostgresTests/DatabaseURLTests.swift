@testable import FamilySyncPostgres
import Testing

@Suite struct DatabaseURLTests {
    @Test func parsesAFullURL() throws {
        let url = try DatabaseURL("postgres://fam:s3cret@db.example:6543/familysync?sslmode=require")
        #expect(url.endpoint == .tcp(host: "db.example", port: 6543))
        #expect(url.username == "fam")
        #expect(url.password == "s3cret")
        #expect(url.database == "familysync")
        #expect(url.tlsMode == .require)
    }

    @Test func defaultsPortAndPreferTLS() throws {
        let url = try DatabaseURL("postgresql://fam@localhost/db")
        #expect(url.endpoint == .tcp(host: "localhost", port: 5432))
        #expect(url.password == nil)
        #expect(url.tlsMode == .prefer)
    }

    @Test(arguments: ["disable", "prefer", "require", "verify-full"])
    func acceptsEachTLSMode(_ mode: String) throws {
        #expect(try DatabaseURL("postgres://u@h/d?sslmode=\(mode)").tlsMode.rawValue == mode)
    }

    @Test func hostParameterSelectsAUnixSocket() throws {
        let url = try DatabaseURL("postgres://u@/d?host=/var/run/postgresql")
        #expect(url.endpoint == .unixSocket(path: "/var/run/postgresql/.s.PGSQL.5432"))
        #expect(url.clientConfiguration().unixSocketPath == "/var/run/postgresql/.s.PGSQL.5432")
    }

    @Test(arguments: [
        "postgres://fam:s3cret@db.example:6543/familysync?sslmode=require",
        "postgres://u@/d?host=/tmp/some%20dir",
        "postgres://u@localhost/d?sslmode=disable",
    ])
    func connectionStringParsesBackToTheSameURL(_ text: String) throws {
        let url = try DatabaseURL(text)
        #expect(try DatabaseURL(url.connectionString) == url)
    }

    @Test func descriptionHidesThePassword() throws {
        let url = try DatabaseURL("postgres://fam:s3cret@db/familysync")
        #expect(!url.description.contains("s3cret"))
    }

    @Test(arguments: [
        ("not a url at all", "expected postgres://"),
        ("mysql://u@h/d", "scheme must be postgres"),
        ("postgres://h/d", "a user name is required"),
        ("postgres://u@h", "a database name is required"),
        ("postgres://u@h/", "a database name is required"),
        ("postgres://u@h/d?sslmode=sometimes", "sslmode must be"),
        ("postgres://u@h/d?timeout=3", "unknown parameter 'timeout'"),
        ("postgres://u@h:0/d", "port 0 is out of range"),
        ("postgres://u@/d", "a host is required"),
    ])
    func rejectsMalformedURLs(_ text: String, _ reason: String) {
        #expect {
            try DatabaseURL(text)
        } throws: { error in
            (error as? DatabaseURL.ParseError)?.description.contains(reason) == true
        }
    }
}
