import NIOCore
import NIOPosix

/// A sleep on NIO's timers rather than `Task.sleep`. On Linux a cancelled `Task.sleep` resumes at
/// once but leaves its dispatch timer queued until the deadline: a deadline raced on every pool
/// lease (3 s) and its watchdog (250 ms) left hundreds of thousands of timers after a burst, and
/// the server burned a tenth of a core on them for over a minute once the load had gone. A
/// cancelled NIO scheduled task leaves its timer heap at once.
enum TimerSleep {
    /// Throws `CancellationError` when the task is cancelled before `duration` passes.
    static func sleep(for duration: Duration) async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        let scheduled = loop.scheduleTask(in: .nanoseconds(nanoseconds)) {}
        do {
            try await withTaskCancellationHandler {
                try await scheduled.futureResult.get()
            } onCancel: {
                scheduled.cancel()
            }
        } catch {
            throw CancellationError()
        }
    }
}
