import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import Hummingbird

/// The dashboard's live pages: `/app/live.js`, and `/app/live`, the long poll of the browser's
/// device (§6) answered by the API's own `/v1/poll` through the SDK.
extension WebController {
    func addLiveRoutes(to app: RouterGroup<Context>) {
        app.get("live.js", use: liveScript)
            .get("live", use: live)
    }

    /// How long `/app/live` holds, under the API's 60 s and a proxy's usual read timeout.
    static let liveSeconds = 25

    @Sendable func liveScript(_ request: Request, context: Context) async throws -> Response {
        Response(status: .ok, headers: [.contentType: "text/javascript; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: WebLiveScript.source)))
    }

    /// `GET /app/live?since=TOKEN`: `{"changed", "changeToken"}` once something the family sees
    /// changed after the token, or after 25 s with nothing.
    @Sendable func live(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        var response: Response
        do {
            guard let client = try await session.client(api, context) else { throw FamilySyncError(.authenticationRequired, "Sign in again.") }
            let since = request.uri.queryParameters.get("since").map { String($0) }
            // A browser that goes away (a tab closed) ends the held poll at once.
            let answer = try await request.body.consumeWithCancellationOnInboundClose { _ in
                try await client.poll(since: since, timeout: Self.liveSeconds)
            }
            let body = try JSONEncoder().encode(LiveAnswer(changed: answer.changed, changeToken: answer.changeToken))
            response = Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        } catch is CancellationError {
            return Response(status: .init(code: 499, reasonPhrase: "Client Closed Request"))
        } catch {
            let failure = FamilySyncError(answering: error, to: request)
            if failure.code == .internalError { context.logger.error("dashboard live poll failed", metadata: ["error": "\(String(reflecting: error))"]) }
            response = pages.errorPage(failure, strings: session.strings)
        }
        // Its connection's inbound was read to watch for the browser leaving: it is spent.
        response.headers[.connection] = "close"
        return response
    }

    /// The page's starting point for `/app/live`: the family's change token as the page is read
    /// (a poll that does not wait), so that a change between the page and the script's first
    /// poll is not missed.
    func liveToken(_ client: FamilySyncClient) async throws -> String {
        try await client.poll(since: nil, timeout: 0).changeToken
    }

    struct LiveAnswer: Encodable {
        var changed: Bool
        var changeToken: String
    }
}
