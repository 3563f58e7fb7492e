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

    package init(router: RouterResponder<Context>) {
        self.router = router
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        let parking = PollParking()
        let placeholder = try await chain(request, context: context, parking: parking)
        guard let wait = parking.take() else { return placeholder }
        return await parking.answer(placeholder, with: wait())
    }

    /// The router's answer from a child task that has ended when this returns. A task group's
    /// child lives on the heap and goes with the group; an `async let`'s would be allocated in
    /// this task's own slabs, and live until the end of its scope.
    private func chain(_ request: Request, context: Context, parking: PollParking) async throws -> Response {
        return try await withThrowingTaskGroup(of: Response.self) { group in
            group.addTask { try await PollParking.$current.withValue(parking) { try await router.respond(to: request, context: context) } }
            // Its one child's answer, or what it threw: never nil.
            return try await group.next()!
        }
    }
}
