import FamilySyncCore
import Hummingbird
import NIOCore
import Synchronization

/// Where a long poll that must wait is handed out of the middleware chain (Benchmarks/README.md,
/// "A held poll parked outside the chain"). Every middleware's `handle` stays suspended in `next`
/// for as long as a request is answered, and its frame keeps its request and context: about
/// 1.45 KiB each, twelve on a poll's way. So the poll's handler does its first read in the chain
/// and, when it has to wait, leaves its wait here and returns a placeholder; the chain ends, and
/// `FamilySyncResponder` waits on the application's side of it, in a shallow frame.
///
/// The placeholder goes back up the chain as any answer does: the request id and the trace span
/// see it. What the wait answers then takes its status, its headers and its body, and the request
/// metrics (`RequestMetricsMiddleware`) count that status.
final class PollParking: Sendable {
    /// The request's parking place, bound by `FamilySyncResponder` for every request it answers.
    /// The dashboard's in-process polls hold in place: their caller's cancellation ends them.
    @TaskLocal static var current: PollParking?

    /// The poll's wait and its answer (an error already §1.1's JSON).
    typealias Wait = @Sendable () async -> Response

    private struct State {
        var wait: Wait?
        var body = ByteBuffer()
        var status: HTTPResponse.Status?
    }

    private let state = Mutex(State())

    /// Leaves the poll's wait for the responder, and returns the answer for the chain.
    func park(_ wait: @escaping Wait) -> Response {
        state.withLock { $0.wait = wait }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody { [self] writer in
            try await writer.write(state.withLock { $0.body })
            try await writer.finish(nil)
        })
    }

    /// The status the wait answered with, once it has: what the request metrics count.
    var answeredStatus: HTTPResponse.Status? { state.withLock { $0.status } }

    /// The parked wait, once: nil when the request parked none.
    func take() -> Wait? {
        state.withLock { state in
            defer { state.wait = nil }
            return state.wait
        }
    }

    /// The placeholder the chain returned, now with the wait's answer: its status and headers over
    /// the chain's, its body written through whatever the chain wrapped it in.
    func answer(_ placeholder: Response, with answer: Response) async -> Response {
        let collected = CollectedBody()
        // The wait's answers are in memory (a `ByteBuffer`); writing them to memory cannot fail.
        try? await answer.body.write(collected)
        state.withLock {
            $0.body = collected.buffer
            $0.status = answer.status
        }
        var response = placeholder
        response.status = answer.status
        response.headers[.contentType] = nil
        for field in answer.headers { response.headers[field.name] = field.value }
        response.headers[.contentLength] = String(collected.buffer.readableBytes)
        return response
    }
}
