import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// The SDK's typed entry point to a FamilySync server: one call per endpoint of PROTOCOL.md, the
/// wire types of `FamilySyncProtocol`, async/await. Every failure is a `FamilySyncError` carrying
/// §1.1's code (and `retryAfter` from the server's `Retry-After`); a server that cannot be reached
/// is `TRY_AGAIN_LATER`.
public struct FamilySyncClient: Sendable {
    public let serverURL: URL
    /// The device credential sent as `Authorization: Bearer …`, when there is one.
    public let credential: String?
    /// How the requests travel: `URLSessionTransport.shared` unless given another
    /// (`AsyncHTTPClientTransport` of `FamilySyncClientNIO`, an app's own).
    public let transport: any HTTPTransport
    /// Longer than the 60 s long-poll window, so that a held poll is never cut by the client.
    public static let requestTimeout: Duration = .seconds(75)

    /// Told of every exchange once it ends (as `URLSessionTaskMetrics` tells an app): what was
    /// asked, the status (nil when no answer came) and how long it took.
    public let observer: (@Sendable (RequestMetrics) -> Void)?

    public init(
        serverURL: URL, credential: String? = nil, transport: any HTTPTransport = URLSessionTransport.shared,
        observer: (@Sendable (RequestMetrics) -> Void)? = nil
    ) {
        self.serverURL = serverURL
        self.credential = credential
        self.transport = transport
        self.observer = observer
    }

    /// The same server, as the device holding `credential`.
    public func authenticated(as credential: String) -> FamilySyncClient {
        FamilySyncClient(serverURL: serverURL, credential: credential, transport: transport, observer: observer)
    }

    /// `GET /health/live`.
    public func live() async throws(FamilySyncError) -> ProbeStatus {
        try await send(.GET, "/health/live", as: ProbeStatus.self)
    }

    /// `GET /health/ready`: throws `TRY_AGAIN_LATER` while the database is down or unmigrated.
    public func ready() async throws(FamilySyncError) -> ProbeStatus {
        try await send(.GET, "/health/ready", as: ProbeStatus.self)
    }

    // MARK: - Transport

    struct NoBody: Encodable {}

    func send<Response: Decodable>(_ method: RequestMethod, _ path: String, query: [(String, String?)] = [], as type: Response.Type) async throws(FamilySyncError) -> Response {
        try await send(method, path, query: query, body: Optional<NoBody>.none, as: type)
    }

    /// `replayable`: whether sending the request twice does what sending it once does (nil: by
    /// its method, GET, HEAD, PUT and DELETE). Such a request is sent again once when its
    /// connection closed before any answer (`ConnectionLoss`).
    func send<Body: Encodable, Response: Decodable>(
        _ method: RequestMethod, _ path: String, query: [(String, String?)] = [], body: Body?, accept: String = "application/json",
        replayable: Bool? = nil, idempotencyKey: String? = nil, as type: Response.Type
    ) async throws(FamilySyncError) -> Response {
        // A keyed request is answered once however often it arrives (§1.2.1).
        let replayable = idempotencyKey != nil || (replayable ?? [.GET, .HEAD, .PUT, .DELETE].contains(method))
        let bytes = try await exchange(method, path, query: query, body: body, accept: accept, replayable: replayable, idempotencyKey: idempotencyKey)
        if Response.self == EmptyResponse.self { return EmptyResponse() as! Response }
        if Response.self == String.self { return String(decoding: bytes, as: UTF8.self) as! Response }
        do {
            return try WireCoding.makeDecoder().decode(Response.self, from: bytes)
        } catch {
            throw FamilySyncError(.internalError, "The server's answer could not be read: \(error)")
        }
    }

    func exchange<Body: Encodable>(
        _ method: RequestMethod, _ path: String, query: [(String, String?)], body: Body?, accept: String, replayable: Bool = false, idempotencyKey: String? = nil
    ) async throws(FamilySyncError) -> Data {
        var request = try makeRequest(method, path, query: query, body: body, accept: accept, timeout: Self.requestTimeout)
        if let idempotencyKey { request.headers.append((IdempotencyKey.header, idempotencyKey)) }
        return try await answer(request, method: method, path: path, replayable: replayable) { request throws(TransportFailure) in
            try await self.send(request, replayable: replayable)
        }.body
    }

    /// The request of a call: its URL with the query, the credential, the body as JSON.
    func makeRequest<Body: Encodable>(
        _ method: RequestMethod, _ path: String, query: [(String, String?)] = [], body: Body?, accept: String, timeout: Duration
    ) throws(FamilySyncError) -> TransportRequest {
        var components = URLComponents()
        components.queryItems = query.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        // `+` is a space to some servers' query parsers; tokens and instants must arrive as sent.
        let queryText = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        let text = serverURL.absoluteString.trimmingSuffix("/") + path + (queryText.isEmpty ? "" : "?" + queryText)
        guard let url = URL(string: text) else { throw FamilySyncError.badRequest("Not a URL: \(text)") }
        var headers: [(name: String, value: String)] = [("Accept", accept), ("Accept-Encoding", "gzip")]
        if let credential { headers.append(("Authorization", "Bearer \(credential)")) }
        var bodyData: Data?
        if let body {
            do {
                bodyData = try WireCoding.makeEncoder().encode(body)
            } catch {
                throw FamilySyncError.badRequest("The request could not be encoded: \(error)")
            }
            headers.append(("Content-Type", "application/json"))
        }
        return TransportRequest(method: method.rawValue, url: url, headers: headers, body: bodyData, timeout: timeout)
    }

    /// `request` delivered by `deliver` until the server answers 2xx, which is returned: another
    /// answer is thrown as its §1.1 error, unless the server shed the request, which then goes
    /// again (`OverloadRetry`). Each attempt is reported to the observer.
    func answer(
        _ request: TransportRequest, method: RequestMethod, path: String, replayable: Bool,
        via deliver: (TransportRequest) async throws(TransportFailure) -> TransportResponse
    ) async throws(FamilySyncError) -> TransportResponse {
        var attempt = 1
        while true {
            let started = ContinuousClock.now
            let response: TransportResponse
            do throws(TransportFailure) {
                response = try await deliver(request)
            } catch {
                observer?(RequestMetrics(method: method.rawValue, path: path, status: nil, duration: ContinuousClock.now - started))
                throw .unavailable("The server at \(serverURL.absoluteString) could not be reached: \(error)")
            }
            observer?(RequestMetrics(method: method.rawValue, path: path, status: response.status, duration: ContinuousClock.now - started))
            if (200..<300).contains(response.status) { return response }
            var failure = (try? WireCoding.makeDecoder().decode(ErrorResponse.self, from: response.body))?.familySyncError
                ?? FamilySyncError(.internalError, "The server answered \(response.status) without an error body.")
            if failure.retryAfter == nil, let seconds = response.headers["retry-after"].flatMap(Int.init) { failure.retryAfter = seconds }
            // A server that shed the request asks for it again shortly (`OverloadRetry`).
            guard let wait = OverloadRetry.wait(after: failure, attempt: attempt, replayable: replayable) else { throw failure }
            do { try await Task.sleep(for: wait) } catch { throw failure }
            attempt += 1
        }
    }
}

extension FamilySyncClient {
    /// A server or proxy closing its idle keep-alive connections (an idle timeout, a restart, an
    /// nginx reload) races a request sent on one: the request goes again, up to three times in all
    /// (the next pooled connection may be closing too), when that cannot do anything twice.
    func send(_ request: TransportRequest, replayable: Bool) async throws(TransportFailure) -> TransportResponse {
        var attempt = 1
        while true {
            do throws(TransportFailure) {
                return try await transport.exchange(request)
            } catch {
                let again = error.kind == .nothingSent || (error.kind == .noAnswer && replayable)
                guard again, attempt < 3 else { throw error }
                attempt += 1
            }
        }
    }
}

/// The methods the protocol uses.
enum RequestMethod: String, Sendable {
    case GET, HEAD, POST, PUT, PATCH, DELETE
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
