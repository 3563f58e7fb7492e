import Hummingbird
import NIOCore

/// The application's responder: the router's, with two changes to where a request's frames live
/// (Benchmarks/README.md, "A held poll parked outside the chain").
///
/// - **The chain runs in a child task.** Swift's task allocator keeps the slabs of a task's
///   deepest stack until the task ends, and Hummingbird answers a connection's requests in the
///   connection's one task: without this, every keep-alive connection keeps the middleware
///   chain's frames (about 30 KiB) for good, and so does every poll held on it.
/// - **A poll that must wait waits here**, after the chain has returned (`PollParking`), in the
///   connection's task at a depth of a few frames.
public struct FamilySyncResponder: HTTPResponder {
    public typealias Context = FamilySyncRequestContext

    let router: RouterResponder<Context>

    public func respond(to request: Request, context: Context) async throws -> Response {
        let parking = PollParking()
        async let chain = PollParking.$current.withValue(parking) { try await router.respond(to: request, context: context) }
        let placeholder = try await chain
        guard let wait = parking.take() else { return placeholder }
        return await parking.answer(placeholder, with: wait())
    }
}
