import AsyncHTTPClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation
import NIOCore
import NIOHTTP1

/// The SDK's typed entry point to a FamilySync server. Every call throws `FamilySyncError` with the
/// server's §1.1 code; a server that cannot be reached throws `TRY_AGAIN_LATER`.
public struct FamilySyncClient: Sendable {
    public let serverURL: URL
    let httpClient: HTTPClient
    /// Longer than the 60 s long-poll window, so that a held poll is never cut by the client.
    public static let requestTimeout: TimeAmount = .seconds(75)

    public init(serverURL: URL, httpClient: HTTPClient = .shared) {
        self.serverURL = serverURL
        self.httpClient = httpClient
    }

    /// `GET /health/live`.
    public func live() async throws(FamilySyncError) -> HealthStatus {
        try await send(.GET, "/health/live", as: HealthStatus.self)
    }

    /// `GET /health/ready`: throws `TRY_AGAIN_LATER` while the database is down or unmigrated.
    public func ready() async throws(FamilySyncError) -> HealthStatus {
        try await send(.GET, "/health/ready", as: HealthStatus.self)
    }

    func send<Response: Decodable>(_ method: HTTPMethod, _ path: String, as type: Response.Type) async throws(FamilySyncError) -> Response {
        var request = HTTPClientRequest(url: serverURL.absoluteString.trimmingSuffix("/") + path)
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        let status: HTTPResponseStatus
        let body: ByteBuffer
        do {
            let response = try await httpClient.execute(request, timeout: Self.requestTimeout)
            status = response.status
            body = try await response.body.collect(upTo: 64 << 20)
        } catch {
            throw .unavailable("The server at \(serverURL.absoluteString) could not be reached: \(error)")
        }
        let decoder = JSONDecoder()
        guard (200..<300).contains(status.code) else {
            if let envelope = try? decoder.decode(ErrorResponse.self, from: Data(body.readableBytesView)) {
                throw envelope.familySyncError
            }
            throw FamilySyncError(.internalError, "The server answered \(status.code) without an error body.")
        }
        do {
            return try decoder.decode(Response.self, from: Data(body.readableBytesView))
        } catch {
            throw FamilySyncError(.internalError, "The server's answer could not be read: \(error)")
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
