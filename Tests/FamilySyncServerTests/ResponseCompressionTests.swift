import CompressNIO
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import Foundation
import NIOCore
import Testing

/// gzip for clients that accept it, on answers large enough to be worth it; the same JSON either way.
@Suite struct ResponseCompressionTests {
    @Test func aFullSyncPageIsGzippedForAClientThatAcceptsIt() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            for index in 0..<40 { try await server.configure("family", by: parent, name: "note-\(index)") }
            let path = "/v1/zones/family/changes"
            let plain = try await server.send(.get, path, credential: parent.credential)
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(plain.body.readableBytes > 1024)

            let gzipped = try await server.send(.get, path, credential: parent.credential, headers: [("Accept-Encoding", "br, gzip;q=0.8")])
            #expect(gzipped.status == .ok)
            #expect(gzipped.headers[.contentEncoding] == "gzip")
            #expect(gzipped.headers[.vary]?.lowercased().contains("accept-encoding") == true)
            #expect(gzipped.headers[.contentLength] == "\(gzipped.body.readableBytes)")
            #expect(gzipped.body.readableBytes < plain.body.readableBytes / 3)
            var body = gzipped.body
            let inflated = try body.decompress(with: .gzip(), allocator: ByteBufferAllocator())
            // The same records; only the token may differ (none was written between the two).
            let decoded = try WireCoding.makeDecoder().decode(ZoneChangesResponse.self, from: Data(inflated.readableBytesView))
            #expect(decoded.records.count == 40)
            #expect(decoded.records.map(\.recordName) == (try plain.decode(ZoneChangesResponse.self)).records.map(\.recordName))
        }
    }

    @Test(arguments: [
        "gzip;q=0", "identity", "deflate", "*;q=0", "",
    ])
    func aClientThatRefusesGzipGetsPlainJSON(_ acceptEncoding: String) async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            for index in 0..<20 { try await server.configure("family", by: parent, name: "note-\(index)") }
            let reply = try await server.send(.get, "/v1/zones/family/changes", credential: parent.credential, headers: [("Accept-Encoding", acceptEncoding)])
            #expect(reply.headers[.contentEncoding] == nil)
            #expect(try reply.decode(ZoneChangesResponse.self).records.count == 20)
        }
    }

    @Test func smallAnswersAreNotCompressed() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let reply = try await server.send(.get, "/v1/devices/me", credential: parent.credential, headers: [("Accept-Encoding", "gzip")])
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentEncoding] == nil)
        }
    }

    @Test func anyCodingAcceptedIncludesGzip() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            for index in 0..<20 { try await server.configure("family", by: parent, name: "note-\(index)") }
            let reply = try await server.send(.get, "/v1/zones/family/changes", credential: parent.credential, headers: [("Accept-Encoding", "*")])
            #expect(reply.headers[.contentEncoding] == "gzip")
        }
    }
}
