import Foundation

/// How the SDK's requests travel. `URLSessionTransport`, the default, uses the system's networking
/// (on Linux, FoundationNetworking); `AsyncHTTPClientTransport` (the `FamilySyncClientNIO`
/// library) uses AsyncHTTPClient, for servers and the CLI. An app may bring its own.
public protocol HTTPTransport: Sendable {
    /// One request and its whole answer, any gzip undone; `TransportFailure` when no answer came.
    func exchange(_ request: TransportRequest) async throws(TransportFailure) -> TransportResponse

    /// As `exchange`, but a 2xx answer's body goes to `file` (created or replaced) and the
    /// response's own `body` is empty; any other answer comes back whole, for its error. For a
    /// body that may be large (an export, §15.2).
    func download(_ request: TransportRequest, to file: URL) async throws(TransportFailure) -> TransportResponse
}

extension HTTPTransport {
    /// The answer taken whole, then written: a transport that can stream to a file says so by
    /// implementing `download` itself (`AsyncHTTPClientTransport` does).
    public func download(_ request: TransportRequest, to file: URL) async throws(TransportFailure) -> TransportResponse {
        var response = try await exchange(request)
        guard (200..<300).contains(response.status) else { return response }
        do {
            try response.body.write(to: file)
        } catch {
            throw TransportFailure(.noAnswer, "the answer could not be written to \(file.path): \(error)")
        }
        response.body = Data()
        return response
    }
}

/// A request as the SDK hands it to a transport.
public struct TransportRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// For the whole exchange: longer than the longest long poll.
    public var timeout: Duration
}

/// An answer: its status, its headers (names in lower case) and its body.
public struct TransportResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }
}

/// No answer came. What an HTTP client may send again follows Go's `net/http` transport: a
/// request that never left, always; one that left without an answer, only when sending it twice
/// is harmless (`FamilySyncClient` decides that).
public struct TransportFailure: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The server could not be reached, or did not answer in time.
        case unreachable
        /// The connection closed before the request was written: the server never saw it.
        case nothingSent
        /// The request may have reached the server; the connection closed with no answer.
        case noAnswer
    }

    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
