import FamilySyncCore
import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import Synchronization
import Testing

/// The turns of `FamilyWriteQueue` on their own, with no database: order, the line's bounds,
/// cancellation, and a turn that found the database away. `FamilyIsolationTests` has them in a server.
@Suite struct FamilyWriteQueueTests {
    static func waitForWriters(_ count: Int, of family: UUID, in queue: FamilyWriteQueue) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while queue.writers(of: family) != count {
            guard ContinuousClock.now < deadline else { throw TestFailure("never \(count) writers") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    final class Order: Sendable {
        let seen = Mutex<[Int]>([])
    }

    @Test func writersTakeTurnsFirstInLineFirstAndOthersFamiliesDoNotWait() async throws {
        let queue = FamilyWriteQueue(limits: .init(waiting: 8, wait: .seconds(60)))
        let family = UUID(), other = UUID()
        let release = SingleOutcome<Void>(), order = Order()
        let holder = Task { try await queue.inTurn(of: family) { try await release.value } }
        try await Self.waitForWriters(1, of: family, in: queue)
        var waiters: [Task<Void, any Error>] = []
        for index in 0..<4 {
            waiters.append(Task { try await queue.inTurn(of: family) { order.seen.withLock { $0.append(index) } } })
            try await Self.waitForWriters(index + 2, of: family, in: queue)
        }
        // Another family's turn is free while this one's is held.
        #expect(try await queue.inTurn(of: other) { 7 } == 7)
        release.resolve(.success(()))
        try await holder.value
        for waiter in waiters { try await waiter.value }
        #expect(order.seen.withLock { $0 } == [0, 1, 2, 3])
        #expect(queue.writers(of: family) == 0)
    }

    @Test func aCancelledWriterLeavesTheLine() async throws {
        let queue = FamilyWriteQueue(limits: .init(waiting: 8, wait: .seconds(60)))
        let family = UUID()
        let release = SingleOutcome<Void>()
        let holder = Task { try await queue.inTurn(of: family) { try await release.value } }
        try await Self.waitForWriters(1, of: family, in: queue)
        let cancelled = Task { try await queue.inTurn(of: family) { Issue.record("a cancelled writer had its turn") } }
        try await Self.waitForWriters(2, of: family, in: queue)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(queue.writers(of: family) == 1)
        release.resolve(.success(()))
        try await holder.value
        #expect(queue.writers(of: family) == 0)
    }

    /// Each writer in line would wait for a connection in vain after the one before it: the line
    /// ends with the same answer at once, not "family busy" one by one.
    @Test func aTurnThatFoundTheDatabaseAwayEndsTheLine() async throws {
        let queue = FamilyWriteQueue(limits: .init(waiting: 8, wait: .seconds(60)))
        let family = UUID()
        let release = SingleOutcome<Void>()
        let holder = Task {
            try await queue.inTurn(of: family) {
                try await release.value
                throw TryAgainReason.databaseUnavailable.error
            }
        }
        try await Self.waitForWriters(1, of: family, in: queue)
        let waiters = (0..<3).map { _ in Task { try await queue.inTurn(of: family) { Issue.record("a writer had its turn") } } }
        try await Self.waitForWriters(4, of: family, in: queue)
        release.resolve(.success(()))
        await #expect(throws: TryAgainReason.databaseUnavailable.error) { try await holder.value }
        for waiter in waiters {
            await #expect(throws: TryAgainReason.databaseUnavailable.error) { try await waiter.value }
        }
        #expect(queue.writers(of: family) == 0)
    }
}
