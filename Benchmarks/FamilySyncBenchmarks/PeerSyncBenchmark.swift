import AsyncHTTPClient
import CompressNIO
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Logging
import Foundation
import NIOCore
import NIOHTTP1
import PostgresNIO

/// A new device's full sync of a zone against Kinto's, its peer (a JSON sync server on PostgreSQL),
/// in one run: the same records in both, the same client (AsyncHTTPClient and Foundation's
/// `JSONDecoder`, as the SDK decodes), five ways alternating each round: FamilySync's full format
/// gzipped (as clients asked for it before the compact one) and plain, its compact format (what the
/// SDK asks for) gzipped and plain, and Kinto as it answers (waitress sends no gzip).
///
/// Kinto comes from PyPI (`Benchmarks/kinto.sh` installs 26.5 into a virtual environment);
/// `FAMILYSYNC_KINTO` names its `kinto` program if it is elsewhere. Its storage and permissions are
/// a database of the harness's own PostgreSQL, its cache in memory, its log at warnings.
enum PeerSyncBenchmark {
    static func run(_ arguments: [String]) async throws {
        let rounds = arguments.count > 0 ? Int(arguments[0]) ?? 3 : 3
        let recordCount = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
        let program = ProcessInfo.processInfo.environment["FAMILYSYNC_KINTO"] ?? "/tmp/familysync-kinto/bin/kinto"
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw BenchFailure("Kinto is not installed at \(program): run Benchmarks/kinto.sh, or set FAMILYSYNC_KINTO")
        }
        let server = try await InProcessServer.start()
        let api = API(base: server.base, http: HTTPClient(eventLoopGroupProvider: .singleton))
        var kinto: KintoProcess?
        do {
            let fixture = try await ZoneFixture.make(api)
            try await fixture.writeApps(recordCount, through: api)

            try await server.postgres.query("CREATE DATABASE kinto", logger: server.logger)
            var kintoDatabase = server.database.url
            kintoDatabase.database = "kinto"
            let started = try await KintoProcess.start(program: program, database: kintoDatabase, directory: server.directory)
            kinto = started
            let peer = KintoClient(base: started.base, http: api.http)
            try await peer.load(recordCount, fields: ZoneFixture.fields)
            // Both databases' statistics as autovacuum leaves them a minute after such a load: a
            // plan chosen while a table looked empty (a whole zone read to sort it) measures when
            // autovacuum ran, not the servers.
            try await server.postgres.query("ANALYZE", logger: server.logger)
            try await analyze(kintoDatabase, logger: server.logger)

            var results: [String: [ZoneFixture.FullSync]] = [:]
            let ways: [(String, () async throws -> ZoneFixture.FullSync)] = [
                ("FamilySync, gzip", { try await fixture.fullSync(api, gzip: true, format: .full, expecting: recordCount) }),
                ("FamilySync, plain", { try await fixture.fullSync(api, gzip: false, format: .full, expecting: recordCount) }),
                ("compact, gzip", { try await fixture.fullSync(api, gzip: true, format: .compact, expecting: recordCount) }),
                ("compact, plain", { try await fixture.fullSync(api, gzip: false, format: .compact, expecting: recordCount) }),
                ("Kinto 26.5", { try await peer.fullSync(expecting: recordCount) }),
            ]
            // One untimed pass of each first: both servers' caches and connections warm.
            FileHandle.standardError.write(Data("both loaded; syncing\n".utf8))
            for (_, way) in ways { _ = try await way() }
            for _ in 0..<rounds {
                for (name, way) in ways { results[name, default: []].append(try await way()) }
            }

            print("A full sync of \(recordCount) records, pages of 1,000, one client, \(rounds) rounds alternating (median, then each round)")
            let kintoMedian = median(results["Kinto 26.5"]!.map(\.seconds))
            for (name, _) in ways {
                let syncs = results[name]!
                let each = syncs.map { String(format: "%.3f", $0.seconds) }.joined(separator: " / ")
                print(String(format: "  %@ %.3f s (%@ s), %.2f MB on the wire, the client's inflating and decoding %.3f s; Kinto's time ÷ this %.2f",
                             name.padding(toLength: 18, withPad: " ", startingAt: 0) as NSString, median(syncs.map(\.seconds)), each, Double(syncs[0].wireBytes) / 1e6, median(syncs.map(\.decodeSeconds)),
                             kintoMedian / median(syncs.map(\.seconds))))
            }
            try await compressionLevels(api, fixture)
        } catch {
            print("benchmark failed: \(error)")
        }
        await kinto?.stop()
        try await api.http.shutdown()
        try await server.stop()
    }


    static func analyze(_ database: DatabaseURL, logger: Logger) async throws {
        let connection = try await PostgresConnection.connect(configuration: try database.connectionConfiguration(), id: 1, logger: logger)
        do {
            try await connection.query("ANALYZE", logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// What gzip's level costs on a page of 1,000 records (the compression middleware's work), in
    /// each format: the time a page and the bytes it comes to.
    static func compressionLevels(_ api: API, _ fixture: ZoneFixture) async throws {
        print("gzip of one page of 1,000 records, as the server compresses it (CompressNIO), 20 times a level:")
        for format in ChangesFormat.allCases {
            var request = HTTPClientRequest(url: api.base + "/v1/zones/\(fixture.zone)/changes?limit=1000&format=\(format.rawValue)")
            request.headers.add(name: "Authorization", value: "Bearer \(fixture.child.credential)")
            let page = try await api.http.execute(request, timeout: .seconds(60)).body.collect(upTo: 64 << 20)
            var line = "  \(format.rawValue), \(page.readableBytes / 1000) kB:"
            for level: Int32 in [1, 4, 6] {
                var size = 0
                let start = ContinuousClock.now
                for _ in 0..<20 {
                    var plain = page
                    size = try plain.compress(with: .gzip(configuration: .init(compressionLevel: level)), allocator: ByteBufferAllocator()).readableBytes
                }
                line += String(format: "  level %d %.2f ms, %d kB;", level, seconds(.now - start) / 20 * 1000, size / 1000)
            }
            print(line)
        }
    }
}

/// Kinto in a process of its own, on a port the harness picks.
struct KintoProcess {
    let process: Process
    let base: String

    static func start(program: String, database: DatabaseURL, directory: String) async throws -> KintoProcess {
        let port = Int.random(in: 20_000..<30_000)
        let ini = directory + "/kinto.ini"
        // SQLAlchemy's scheme; `%` doubled for the ini file's interpolation.
        let storage = ("postgresql://" + database.connectionString.dropFirst("postgres://".count)).replacingOccurrences(of: "%", with: "%%")
        try """
        [server:main]
        use = egg:waitress#main
        host = 127.0.0.1
        port = \(port)

        [app:main]
        use = egg:kinto
        kinto.storage_backend = kinto.core.storage.postgresql
        kinto.storage_url = \(storage)
        kinto.permission_backend = kinto.core.permission.postgresql
        kinto.permission_url = \(storage)
        kinto.cache_backend = kinto.core.cache.memory
        kinto.userid_hmac_secret = \(UUID().uuidString)
        multiauth.policies = basicauth
        kinto.bucket_create_principals = system.Authenticated
        kinto.batch_max_requests = 1000

        [loggers]
        keys = root

        [handlers]
        keys = console

        [formatters]
        keys = plain

        [logger_root]
        level = WARNING
        handlers = console

        [handler_console]
        class = StreamHandler
        args = (sys.stderr,)
        level = NOTSET
        formatter = plain

        [formatter_plain]
        format = %(message)s
        """.write(toFile: ini, atomically: true, encoding: .utf8)

        let migrate = Process()
        migrate.executableURL = URL(fileURLWithPath: program)
        migrate.arguments = ["migrate", "--ini", ini]
        migrate.standardOutput = FileHandle.nullDevice
        try migrate.run()
        migrate.waitUntilExit()
        guard migrate.terminationStatus == 0 else { throw BenchFailure("kinto migrate exited \(migrate.terminationStatus)") }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = ["start", "--ini", ini]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let kinto = KintoProcess(process: process, base: "http://127.0.0.1:\(port)/v1")
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, process.isRunning {
            if let answer = try? await http.execute(HTTPClientRequest(url: kinto.base + "/__heartbeat__"), timeout: .seconds(2)), answer.status == .ok {
                try await http.shutdown()
                return kinto
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        try await http.shutdown()
        await kinto.stop()
        throw BenchFailure("Kinto did not answer within 60 s (exit status \(process.isRunning ? "none" : "\(process.terminationStatus)"))")
    }

    func stop() async {
        await process.stopGently()
    }
}

/// Kinto's HTTP API as its clients use it: a bucket and collection, batches of `PUT`s, and the
/// records listed a page at a time by following `Next-Page`.
struct KintoClient {
    let base: String
    let http: HTTPClient
    let collection = "/buckets/bench/collections/apps"

    func load(_ count: Int, fields: (Int) -> [String: JSONValue]) async throws {
        _ = try await send(.PUT, "/buckets/bench", body: JSONValue.object([:]))
        _ = try await send(.PUT, collection, body: JSONValue.object([:]))
        for start in stride(from: 0, to: count, by: 1000) {
            let requests = (start..<min(start + 1000, count)).map { index in
                JSONValue.object(["path": .string("\(collection)/records/app-\(index)"), "body": .object(["data": .object(fields(index))])])
            }
            _ = try await send(.POST, "/batch", body: JSONValue.object(["defaults": .object(["method": .string("PUT")]), "requests": .array(requests)]))
        }
    }

    /// Kinto's answer: `{"data": [record, …]}`, each record its fields with `id` and `last_modified`.
    struct Page: Decodable {
        var data: [[String: JSONValue]]
    }

    func fullSync(expecting count: Int) async throws -> ZoneFixture.FullSync {
        let start = ContinuousClock.now
        var next: String? = base + collection + "/records?_limit=1000"
        var (synced, wireBytes, decodeSeconds) = (0, 0, 0.0)
        while let url = next {
            let response = try await http.execute(authorized(HTTPClientRequest(url: url)), timeout: .seconds(120))
            let bytes = try await response.body.collect(upTo: 256 << 20)
            guard response.status == .ok else { throw BenchFailure("Kinto's GET \(url): \(response.status)") }
            wireBytes += bytes.readableBytes
            let decodeStart = ContinuousClock.now
            synced += try JSONDecoder().decode(Page.self, from: Data(bytes.readableBytesView)).data.count
            decodeSeconds += seconds(.now - decodeStart)
            next = response.headers.first(name: "Next-Page")
        }
        guard synced == count else { throw BenchFailure("Kinto's full sync returned \(synced) of \(count)") }
        return ZoneFixture.FullSync(seconds: seconds(.now - start), wireBytes: wireBytes, decodeSeconds: decodeSeconds, token: nil)
    }

    private func authorized(_ request: HTTPClientRequest) -> HTTPClientRequest {
        var request = request
        request.headers.add(name: "Authorization", value: "Basic " + Data("bench:bench-secret".utf8).base64EncodedString())
        return request
    }

    private func send(_ method: HTTPMethod, _ path: String, body: JSONValue) async throws -> ByteBuffer {
        var request = authorized(HTTPClientRequest(url: base + path))
        request.method = method
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(body)))
        let response = try await http.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        guard response.status.code < 300 else { throw BenchFailure("Kinto's \(method) \(path): \(response.status) \(String(buffer: bytes).prefix(500))") }
        return bytes
    }
}
