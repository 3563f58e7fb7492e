import NIOCore

/// One task executor for each event loop of a group, made once: a task that prefers a loop's runs
/// its jobs on that loop's thread.
public final class EventLoopTaskExecutors: Sendable {
    private let executors: [ObjectIdentifier: EventLoopTaskExecutor]

    public init(_ group: any EventLoopGroup) {
        executors = Dictionary(uniqueKeysWithValues: group.makeIterator().map { (ObjectIdentifier($0), EventLoopTaskExecutor($0)) })
    }

    /// `loop`'s executor; nil for a loop not of the group (a test's embedded channel's).
    public func executor(for loop: any EventLoop) -> EventLoopTaskExecutor? { executors[ObjectIdentifier(loop)] }
}
