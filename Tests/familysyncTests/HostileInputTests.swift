import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ReliabilitySuites {
    /// Bytes a broken or hostile client sends, over raw TCP to a server process: each gets its 4xx,
    /// nothing is stored, and the server goes on serving.
    @Suite(.timeLimit(.minutes(3))) struct HostileInputTests {
        static let recordID = UUID().uuidString

        /// An upload of one record whose display name and seconds are spliced in as raw bytes.
        static func upload(name: [UInt8] = Array("Khan".utf8), seconds: String = "60", prefix: String = "") -> [UInt8] {
            let end = Date().addingTimeInterval(-3600)
            let format = ISO8601DateFormatter()
            return Array(#"{\#(prefix)"timeZone":"UTC","records":[{"recordID":"\#(recordID)","logicalID":"app-0","displayName":""#.utf8) + name
                + Array(#"","category":"learning","sessionStart":"\#(format.string(from: end.addingTimeInterval(-60)))","sessionEnd":"\#(format.string(from: end))","totalSeconds":\#(seconds)}]}"#.utf8)
        }

        static func post(_ body: [UInt8], credential: String) -> [UInt8] {
            Array("POST /v1/usage HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(credential)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        }

        @Test func eachGetsItsClientErrorAndTheServerStaysUp() async throws {
            try await withTemporaryDirectory { directory in
                let database = try await TestPostgres.shared.makeDatabase(isolation: .database)
                let port = try freePort()
                let server = try await ServerProcess.start(
                    ["serve", "--port", "\(port)"], port: port, environment: ["DATABASE_URL": database.connectionString], workingDirectory: directory
                )
                defer { server.signal(SIGKILL) }
                try await server.waitUntilReady()
                let family = try await PairedFamily.create(on: server.client)
                let child = family.children[0]
                let credential = try #require(child.client.credential)

                let nested = "{\"timeZone\":\"UTC\",\"records\":" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
                let bodies: [(String, [UInt8], String)] = [
                    ("nesting 100,000 deep", Array(nested.utf8), "400"),
                    ("invalid UTF-8", Self.upload(name: [0x4B, 0xFF, 0xFE, 0x6E]), "400"),
                    ("a lone surrogate", Self.upload(name: Array(#"K\ud800n"#.utf8)), "400"),
                    ("1e309", Self.upload(seconds: "1e309"), "400"),
                    ("a duplicate key", Self.upload(prefix: #""timeZone":"Europe/Paris","#), "400"),
                ]
                for (what, body, status) in bodies {
                    let answer = try await RawHTTPConnection(port: port).exchange(Self.post(body, credential: credential))
                    #expect(answer.hasPrefix("HTTP/1.1 \(status)"), "\(what): \(answer.prefix(300))")
                    #expect(answer.contains(#""code":"BAD_REQUEST""#), "\(what): \(answer.prefix(300))")
                }

                // 5 MiB in chunks, no Content-Length: refused while it streams in.
                let chunk = String(repeating: " ", count: 65_536)
                let chunked = "POST /v1/usage HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(credential)\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + String(repeating: "10000\r\n\(chunk)\r\n", count: 80) + "0\r\n\r\n"
                let refused = try await RawHTTPConnection(port: port).exchange(chunked)
                #expect(refused.hasPrefix("HTTP/1.1 413"), "\(refused.prefix(300))")
                #expect(refused.contains(#""code":"LIMIT_EXCEEDED""#))

                // A head of 1 MiB: NIO's parser refuses it before any handler runs.
                let header = "GET /health/ready HTTP/1.1\r\nHost: localhost\r\nX-Padding: \(String(repeating: "a", count: 1 << 20))\r\n\r\n"
                let tooLarge = try await RawHTTPConnection(port: port).exchange(header)
                #expect(tooLarge.hasPrefix("HTTP/1.1 400"), "\(tooLarge.prefix(300))")

                // Three hundred clients that never finish their heads, and one that does.
                let stalled = try (0..<300).map { _ in try RawHTTPConnection(port: port) }
                for connection in stalled {
                    _ = "GET /health/ready HTTP/1.1\r\nHost: localhost\r\n".withCString { send(connection.descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                }
                _ = try await failingIfHung(after: .seconds(20), "a normal client beside 300 stalled ones") { try await server.client.ready() }
                #expect(stalled.filter(\.isClosedByPeer).isEmpty, "a stalled client was cut before the idle timeout")

                // Nothing of the refused uploads was stored: the same record now is new.
                let answer = try await child.client.uploadUsage(
                    try WireCoding.makeDecoder().decode(UsageUploadRequest.self, from: Data(Self.upload()))
                )
                #expect(answer.accepted == 1 && answer.duplicates == 0)
                #expect(!server.stderr.contains("INTERNAL_ERROR"))
                server.signal(SIGTERM)
                #expect(try await server.waitForExit() == .exited(0))
                _ = stalled
            }
        }
    }
}
