import AsyncHTTPClient
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO
import Prometheus
import ServiceLifecycle

struct API: Sendable {
    let base: String
    let http: HTTPClient

    func send<Response: Decodable>(_ method: HTTPMethod, _ path: String, credential: String? = nil, body: some Encodable, as type: Response.Type) async throws -> Response {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let credential { request.headers.add(name: "Authorization", value: "Bearer \(credential)") }
        request.body = .bytes(ByteBuffer(data: try WireCoding.makeEncoder().encode(body)))
        let response = try await http.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        guard response.status.code < 300 else { throw BenchFailure("\(method) \(path): \(response.status) \(String(buffer: bytes))") }
        return try WireCoding.makeDecoder().decode(Response.self, from: Data(bytes.readableBytesView))
    }

    func get<Response: Decodable>(_ path: String, credential: String, as type: Response.Type) async throws -> Response {
        var request = HTTPClientRequest(url: base + path)
        request.headers.add(name: "Authorization", value: "Bearer \(credential)")
        let response = try await http.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 256 << 20)
        guard response.status.code < 300 else { throw BenchFailure("GET \(path): \(response.status) \(String(buffer: bytes))") }
        return try WireCoding.makeDecoder().decode(Response.self, from: Data(bytes.readableBytesView))
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

struct Empty: Codable {}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
