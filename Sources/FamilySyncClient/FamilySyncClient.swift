import AsyncHTTPClient
import CompressNIO
import FamilySyncCore
import FamilySyncProtocol
import Foundation
import NIOCore
import NIOHTTP1

/// The SDK's typed entry point to a FamilySync server: one call per endpoint of PROTOCOL.md, the
/// wire types of `FamilySyncProtocol`, async/await. Every failure is a `FamilySyncError` carrying
/// §1.1's code (and `retryAfter` from the server's `Retry-After`); a server that cannot be reached
/// is `TRY_AGAIN_LATER`.
public struct FamilySyncClient: Sendable {
    public let serverURL: URL
    /// The device credential sent as `Authorization: Bearer …`, when there is one.
    public let credential: String?
    let httpClient: HTTPClient
    /// Longer than the 60 s long-poll window, so that a held poll is never cut by the client.
    public static let requestTimeout: TimeAmount = .seconds(75)

    /// The HTTP client every `FamilySyncClient` shares unless given another. Unlike
    /// `HTTPClient.shared`, it does not retry a refused connection until the request's deadline
    /// (75 s, for the long poll): a server that is down is reported at once, and the SDK's own
    /// backoff (`UsageUploadQueue`, `SyncEngine`) decides when to try again.
    public static let sharedHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(10)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// Told of every exchange once it ends (as `URLSessionTaskMetrics` tells an app): what was
    /// asked, the status (nil when no answer came) and how long it took.
    public let observer: (@Sendable (RequestMetrics) -> Void)?

    public init(
        serverURL: URL, credential: String? = nil, httpClient: HTTPClient = FamilySyncClient.sharedHTTPClient,
        observer: (@Sendable (RequestMetrics) -> Void)? = nil
    ) {
        self.serverURL = serverURL
        self.credential = credential
        self.httpClient = httpClient
        self.observer = observer
    }

    /// The same server, as the device holding `credential`.
    public func authenticated(as credential: String) -> FamilySyncClient {
        FamilySyncClient(serverURL: serverURL, credential: credential, httpClient: httpClient, observer: observer)
    }

    /// `GET /health/live`.
    public func live() async throws(FamilySyncError) -> HealthStatus {
        try await send(.GET, "/health/live", as: HealthStatus.self)
    }

    /// `GET /health/ready`: throws `TRY_AGAIN_LATER` while the database is down or unmigrated.
    public func ready() async throws(FamilySyncError) -> HealthStatus {
        try await send(.GET, "/health/ready", as: HealthStatus.self)
    }

    // MARK: - Transport

    struct NoBody: Encodable {}

    func send<Response: Decodable>(_ method: HTTPMethod, _ path: String, query: [(String, String?)] = [], as type: Response.Type) async throws(FamilySyncError) -> Response {
        try await send(method, path, query: query, body: Optional<NoBody>.none, as: type)
    }

    /// `replayable`: whether sending the request twice does what sending it once does (nil: by
    /// its method, GET, HEAD, PUT and DELETE). Such a request is sent again once when its
    /// connection closed before any answer (`ConnectionLoss`).
    func send<Body: Encodable, Response: Decodable>(
        _ method: HTTPMethod, _ path: String, query: [(String, String?)] = [], body: Body?, accept: String = "application/json",
        replayable: Bool? = nil, as type: Response.Type
    ) async throws(FamilySyncError) -> Response {
        let bytes = try await exchange(method, path, query: query, body: body, accept: accept, replayable: replayable ?? [.GET, .HEAD, .PUT, .DELETE].contains(method))
        if Response.self == EmptyResponse.self { return EmptyResponse() as! Response }
        if Response.self == String.self { return String(buffer: bytes) as! Response }
        do {
            return try WireCoding.makeDecoder().decode(Response.self, from: Data(bytes.readableBytesView))
        } catch {
            throw FamilySyncError(.internalError, "The server's answer could not be read: \(error)")
        }
    }

    func exchange<Body: Encodable>(
        _ method: HTTPMethod, _ path: String, query: [(String, String?)], body: Body?, accept: String, replayable: Bool = false
    ) async throws(FamilySyncError) -> ByteBuffer {
        var components = URLComponents()
        components.queryItems = query.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        // `+` is a space to some servers' query parsers; tokens and instants must arrive as sent.
        let queryText = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        var request = HTTPClientRequest(url: serverURL.absoluteString.trimmingSuffix("/") + path + (queryText.isEmpty ? "" : "?" + queryText))
        request.method = method
        request.headers.add(name: "Accept", value: accept)
        // A full sync's pages come gzipped, a sixth of their size.
        request.headers.add(name: "Accept-Encoding", value: "gzip")
        if let credential { request.headers.add(name: "Authorization", value: "Bearer \(credential)") }
        if let body {
            do {
                request.body = .bytes(ByteBuffer(bytes: try WireCoding.makeEncoder().encode(body)))
            } catch {
                throw FamilySyncError.badRequest("The request could not be encoded: \(error)")
            }
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let status: HTTPResponseStatus
        let headers: HTTPHeaders
        let bytes: ByteBuffer
        let started = ContinuousClock.now
        do {
            let response: HTTPClientResponse
            do {
                response = try await httpClient.execute(request, timeout: Self.requestTimeout)
            } catch {
                // A server or proxy closing an idle keep-alive connection (an idle timeout, a
                // restart, an nginx reload) races a request sent on it: once, it goes again on a
                // new connection, when that cannot do anything twice.
                switch ConnectionLoss(error) {
                case .nothingSent?: response = try await httpClient.execute(request, timeout: Self.requestTimeout)
                case .noAnswer? where replayable: response = try await httpClient.execute(request, timeout: Self.requestTimeout)
                default: throw error
                }
            }
            status = response.status
            headers = response.headers
            bytes = try Self.decoded(try await response.body.collect(upTo: 64 << 20), headers: headers)
        } catch {
            observer?(RequestMetrics(method: method.rawValue, path: path, status: nil, duration: ContinuousClock.now - started))
            throw .unavailable("The server at \(serverURL.absoluteString) could not be reached: \(error)")
        }
        observer?(RequestMetrics(method: method.rawValue, path: path, status: Int(status.code), duration: ContinuousClock.now - started))
        guard (200..<300).contains(status.code) else {
            var failure = (try? WireCoding.makeDecoder().decode(ErrorResponse.self, from: Data(bytes.readableBytesView)))?.familySyncError
                ?? FamilySyncError(.internalError, "The server answered \(status.code) without an error body.")
            if failure.retryAfter == nil, let seconds = headers.first(name: "Retry-After").flatMap(Int.init) { failure.retryAfter = seconds }
            throw failure
        }
        return bytes
    }
}

extension FamilySyncClient {
    /// The body as sent, gzip undone; at most 64 MiB either way. An HTTP client of the app's that
    /// already inflated it leaves JSON, which never begins with gzip's magic bytes.
    static func decoded(_ body: ByteBuffer, headers: HTTPHeaders) throws -> ByteBuffer {
        guard headers.first(name: "Content-Encoding")?.lowercased() == "gzip", body.readableBytesView.starts(with: [0x1f, 0x8b]) else { return body }
        var compressed = body
        return try compressed.decompress(with: .gzip(), maxSize: 64 << 20)
    }
}

/// One exchange with the server, for `FamilySyncClient.observer`.
public struct RequestMetrics: Sendable, Equatable {
    public var method: String
    /// The path without the query (`/v1/zones/child-…/changes`).
    public var path: String
    /// The HTTP status, or nil when no answer arrived (the server could not be reached).
    public var status: Int?
    /// From sending the request to the last byte of the answer.
    public var duration: Duration
}

/// The answer of an endpoint that answers `204 No Content`.
public struct EmptyResponse: Decodable, Sendable {}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
