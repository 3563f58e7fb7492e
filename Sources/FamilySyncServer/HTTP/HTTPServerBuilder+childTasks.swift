import Hummingbird
import HummingbirdCore
import NIOCore

extension HTTPServerBuilder {
    /// Hummingbird's HTTP/1 server, each request answered in a child task of its connection's
    /// task, except those `inPlace` says to answer in it. Swift's task allocator keeps the slabs
    /// of a task's deepest stack until the task ends, and a connection's task lives as long as the
    /// connection: answered in it, the first request left the middleware chain's frames (33 slabs
    /// of about 1 KiB) allocated on every keep-alive connection for good, 42 KiB an idle
    /// connection against 15.8 KiB so (Benchmarks/README.md, "A held poll's memory"). A child
    /// task's slabs go with it. A long poll is answered in place: held, its frames are live
    /// either way, and a child task would add its own (66.1 KiB a held poll against 58.8), while
    /// the device holds its next poll on the same connection at once.
    static func http1AnsweringInChildTasks(
        configuration: HTTP1Channel.Configuration, inPlace: @escaping @Sendable (Request) -> Bool
    ) -> HTTPServerBuilder {
        .init { responder in
            HTTP1Channel(responder: { request, writer, channel in
                if inPlace(request) { return try await responder(request, writer, channel) }
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
