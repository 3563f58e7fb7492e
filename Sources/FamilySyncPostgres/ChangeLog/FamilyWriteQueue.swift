import FamilySyncCore
import Foundation
import Synchronization

/// The writers of one family take turns in this instance before any of them leases a connection.
/// Every write of a family waits for that family's row lock (`ChangeLog.write`); without turns, a
/// family's burst held one pool connection per writer, each waiting on that lock, and every other
/// family's requests queued for the pool behind them (34 times slower in the measure).
/// With turns, a family holds at most one connection per instance for its writes, whatever it
/// sends, and its queue is bounded: past `Limits.waiting` writers, or `Limits.wait` in line, that
/// family alone is answered `TRY_AGAIN_LATER` saying it is busy (PROTOCOL §1.2). Reads take no turn.
public final class FamilyWriteQueue: Sendable {
    public struct Limits: Sendable {
        /// Writers of one family that may wait for their turn in this instance.
        public var waiting: Int
        /// How long one waits for its turn.
        public var wait: Duration

        /// A burst is shed by the line's length; the wait catches a line that does not move (a
        /// turn stuck on a lock held elsewhere), longer than any ordinary write takes on a loaded
        /// machine (a day's upload with its summaries took over a second in a debug build under
        /// load, and three such in line outlasted a 4 s wait) and well inside clients' timeouts.
        /// A line whose turn found the database away ends at once (`inTurn`).
        public init(waiting: Int = 32, wait: Duration = .seconds(10)) {
            self.waiting = waiting
            self.wait = wait
        }
    }

    public let limits: Limits
    /// Families whose turn is taken, each with its line of waiting writers, first in line first; a
    /// family with no writer has no entry.
    private let lines = Mutex<[UUID: [SingleOutcome<Void>]]>([:])

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Runs `body` in `family`'s turn: at once when no writer of the family holds it, else after
    /// those before it in line. A turn that found the database away ends the line with the same
    /// answer: each writer in it would wait for a connection in vain, one after another.
    public func inTurn<Result: Sendable>(of family: UUID, _ body: () async throws -> Result) async throws -> Result {
        try await takeTurn(of: family)
        defer { passTurn(of: family) }
        do {
            return try await body()
        } catch let error as FamilySyncError where TryAgainReason(error) == .databaseUnavailable {
            let line = lines.withLock { lines in
                defer { lines[family] = [] }
                return lines[family] ?? []
            }
            for ticket in line { ticket.resolve(.failure(error)) }
            throw error
        }
    }

    /// Whether a new writer of `family` would be refused now, its line being full
    /// (`BusyFamilyRefusal`: said before the request's body is read).
    public func isFull(_ family: UUID) -> Bool {
        lines.withLock { lines in lines[family].map { $0.count >= limits.waiting } ?? false }
    }

    /// Writers of `family` holding or waiting for its turn, for tests.
    public func writers(of family: UUID) -> Int {
        lines.withLock { lines in lines[family].map { $0.count + 1 } ?? 0 }
    }

    private func takeTurn(of family: UUID) async throws {
        let ticket = try lines.withLock { lines -> SingleOutcome<Void>? in
            guard let line = lines[family] else {
                lines[family] = []
                return nil
            }
            guard line.count < limits.waiting else {
                throw TryAgainReason.familyBusy.error
            }
            let ticket = SingleOutcome<Void>()
            lines[family]?.append(ticket)
            return ticket
        }
        guard let ticket else { return }
        try await withTaskCancellationHandler {
            try await SingleOutcome<Void>.race({ try await ticket.value }) { resolve in
                // Past the wait the ticket leaves the line, unless its turn came first.
                do { try await TimerSleep.sleep(for: self.limits.wait) } catch { return }
                guard self.leaveLine(family, ticket) else { return }
                let error = TryAgainReason.familyBusy.error
                ticket.resolve(.failure(error))
                resolve(.failure(error))
            }
        } onCancel: {
            if leaveLine(family, ticket) { ticket.resolve(.failure(CancellationError())) }
        }
    }

    /// Takes `ticket` out of `family`'s line; false when it was no longer in line because its turn
    /// came, so that its caller holds the turn and passes it on.
    private func leaveLine(_ family: UUID, _ ticket: SingleOutcome<Void>) -> Bool {
        lines.withLock { lines in
            guard let index = lines[family]?.firstIndex(where: { $0 === ticket }) else { return false }
            lines[family]?.remove(at: index)
            return true
        }
    }

    /// Hands `family`'s turn to the first in line, or frees it.
    private func passTurn(of family: UUID) {
        let next = lines.withLock { lines -> SingleOutcome<Void>? in
            guard let line = lines[family], !line.isEmpty else {
                lines[family] = nil
                return nil
            }
            return lines[family]?.removeFirst()
        }
        next?.resolve(.success(()))
    }
}
