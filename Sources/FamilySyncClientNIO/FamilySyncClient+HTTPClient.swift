import AsyncHTTPClient
import FamilySyncClient
import Foundation

extension FamilySyncClient {
    /// Over AsyncHTTPClient with `httpClient`: for servers, the CLI and harnesses that already
    /// run SwiftNIO.
    public init(serverURL: URL, credential: String? = nil, httpClient: HTTPClient, observer: (@Sendable (RequestMetrics) -> Void)? = nil) {
        self.init(serverURL: serverURL, credential: credential, transport: AsyncHTTPClientTransport(client: httpClient), observer: observer)
    }
}
