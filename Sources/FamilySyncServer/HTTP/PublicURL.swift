import Hummingbird

/// The base URL devices reach this server at, for QR payloads: the operator's `--public-url`, else
/// the request's Host with the server's own scheme (`https` when it serves TLS).
package struct PublicURL: Sendable {
    let configured: String?
    let scheme: String

    package init(_ configuration: ServerConfiguration) {
        configured = configuration.publicURL
        scheme = configuration.scheme
    }

    package func of(_ request: Request) -> String {
        configured ?? scheme + "://" + (request.head.authority ?? "127.0.0.1")
    }
}
