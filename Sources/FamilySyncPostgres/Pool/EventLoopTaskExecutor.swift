import NIOCore

/// A task executor on one event loop: a task that prefers it runs its jobs on that loop's thread.
/// NIO (2.8x) has none of its own.
public final class EventLoopTaskExecutor: TaskExecutor, Sendable {
    public let loop: any EventLoop

    public init(_ loop: any EventLoop) { self.loop = loop }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
