import FamilySyncCore
import Hummingbird

/// Refuses a body larger than the limit before reading it: at once from `Content-Length`, and for a
/// chunked body when collection passes the limit (Hummingbird stops at `context.maxUploadSize`).
package struct BodyLimitMiddleware: RouterMiddleware {
    package typealias Context = FamilySyncRequestContext

    let maxBodyBytes: Int

    package init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > maxBodyBytes {
            throw FamilySyncError.limitExceeded("The request body is \(declared) bytes; the limit is \(maxBodyBytes).")
        }
        var context = context
        context.maxBodyBytes = maxBodyBytes
        return try await next(request, context)
    }
}
