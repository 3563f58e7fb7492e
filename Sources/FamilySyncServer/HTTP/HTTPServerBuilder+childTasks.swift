import Hummingbird
import HummingbirdCore
import NIOCore

extension HTTPServerBuilder {
    /// Hummingbird's HTTP/1 server, each request answered in a child task of its connection's
    /// task. Swift's task allocator keeps the slabs of a task's deepest stack until the task ends,
    /// and a connection's task lives as long as the connection: answered in it, the first request
    /// left the middleware chain's frames (33 slabs of about 1 KiB) allocated on every keep-alive
    /// connection for good, 42 KiB an idle connection against Hummingbird's own 17 KiB
    /// (Benchmarks/README.md, "A held poll's memory"). A child task's slabs go with it.
    static func http1AnsweringInChildTasks(configuration: HTTP1Channel.Configuration) -> HTTPServerBuilder {
        .init { responder in
            HTTP1Channel(responder: { request, writer, channel in
                let writer = ResponseWriterHandOver(writer)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await responder(request, writer.take(), channel) }
                    try await group.next()
                }
            }, configuration: configuration)
        }
    }
}

/// The connection's response writer (not copyable), handed to the one child task that answers:
/// taken once, by that task, while its parent waits for it.
private final class ResponseWriterHandOver: @unchecked Sendable {
    private var writer: ResponseWriter?

    init(_ writer: consuming ResponseWriter) {
        self.writer = consume writer
    }

    func take() -> ResponseWriter {
        writer.take()!
    }
}
