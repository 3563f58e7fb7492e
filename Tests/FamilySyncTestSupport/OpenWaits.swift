import Foundation
import Synchronization
import Testing

/// The suite's bounded waits while they wait: what each waits for, in which test, since when, for
/// how long at most, and inside which other wait. A timed-out wait names the waits open inside it
/// (the one it was stuck in), and a watchdog on a thread of its own ends a run that hangs.
///
/// Why a thread of its own: a Swift Testing time limit, like any timeout in the suite, is a task.
/// It cannot fire while the cooperative pool has no thread free, and when it fires it cancels the
/// test and then waits for it, so a wait that ignores cancellation keeps the run at 0 % CPU until
/// CI's limit ends it, with nothing said. The watchdog ends the run instead, printing
/// every open wait, when a wait is still open a minute past its bound (its timeout could not end
/// it) or when a probe task has not run for three minutes (the pool is stuck).
public enum OpenWaits {
    struct Entry: Sendable {
        let what: String
        let test: String
        let started: ContinuousClock.Instant
        let limit: Duration
        let parent: Int?
    }

    /// How long past its bound a wait may stay open before the watchdog takes the run as hung
    /// (`FAMILYSYNC_TEST_HANG_GRACE_SECONDS`, for the test that makes a run hang on purpose).
    public static let grace = Duration.seconds(
        ProcessInfo.processInfo.environment["FAMILYSYNC_TEST_HANG_GRACE_SECONDS"].flatMap(Int.init) ?? 60
    )
    /// How long the pool may go without running the watchdog's probe.
    public static let poolSilence = Duration.seconds(180)

    private static let entries = Mutex<[Int: Entry]>([:])
    private static let nextID = Atomic<Int>(1)
    @TaskLocal static var enclosing: Int?

    /// Registers `what` for the duration of `body`; waits opened inside it are its own.
    public static func during<Result>(
        _ what: String, limit: Duration, _ body: () async throws -> Result
    ) async rethrows -> Result {
        let id = open(what, limit: limit)
        defer { close(id) }
        return try await $enclosing.withValue(id) { try await body() }
    }

    public static func open(_ what: String, limit: Duration, at started: ContinuousClock.Instant = .now) -> Int {
        Watchdog.start
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let test = Test.current.map { "\($0.id)" } ?? "outside a test"
        let entry = Entry(what: what, test: test, started: started, limit: limit, parent: enclosing)
        entries.withLock { $0[id] = entry }
        return id
    }

    public static func close(_ id: Int) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }

    /// What a hung run prints beside its waits: the state of each part that is running now (a test
    /// server's pool), named by `what`, for as long as `body` runs.
    public static func describing<Result>(
        _ what: String, by state: @escaping @Sendable () -> String, _ body: () async throws -> Result
    ) async rethrows -> Result {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        states.withLock { $0[id] = (what, state) }
        defer { _ = states.withLock { $0.removeValue(forKey: id) } }
        return try await body()
    }

    private static let states = Mutex<[Int: (what: String, state: @Sendable () -> String)]>([:])

    /// Each running part's state, as `describing` registered it.
    public static func reportStates() -> String {
        let all = states.withLock { $0 }.sorted { $0.key < $1.key }.map(\.value)
        return all.isEmpty ? "  none" : all.map { "  \($0.what): \($0.state())" }.joined(separator: "\n")
    }

    /// The waits open inside wait `id`, innermost last, each with how long it has waited.
    public static func describe(inside id: Int, now: ContinuousClock.Instant = .now) -> String {
        let all = entries.withLock { $0 }
        func isInside(_ entry: Entry) -> Bool {
            var parent = entry.parent
            while let current = parent {
                if current == id { return true }
                parent = all[current]?.parent
            }
            return false
        }
        let inside = all.filter { isInside($0.value) }.sorted { $0.key < $1.key }.map { line($0.value, now: now) }
        return inside.isEmpty ? "no wait of the suite's (the body itself is stuck)" : inside.joined(separator: "; ")
    }

    /// Every open wait, oldest first: what the watchdog prints.
    public static func report(now: ContinuousClock.Instant = .now) -> String {
        entries.withLock { $0 }.sorted { $0.key < $1.key }.map { "  " + line($0.value, now: now) + " [\($0.value.test)]" }
            .joined(separator: "\n")
    }

    /// The waits open past their bound and the grace: those no timeout could end.
    public static func overdue(now: ContinuousClock.Instant = .now) -> [String] {
        entries.withLock { $0 }.values.filter { now - $0.started > $0.limit + grace }.map { line($0, now: now) }
    }

    private static func line(_ entry: Entry, now: ContinuousClock.Instant) -> String {
        let waited = (now - entry.started).components.seconds
        return "\(entry.what) (waiting \(waited) s of \(entry.limit.components.seconds) s)"
    }
}

/// Runs `body` and fails the test if it has not finished within `limit`, naming the waits it is
/// stuck in. Structured: the body is cancelled then, and waited for; a body that ignores
/// cancellation is the watchdog's to end.
public func withinBound<Result: Sendable>(
    _ limit: Duration, _ what: String, _ body: @Sendable () async throws -> Result
) async throws -> Result {
    try await OpenWaits.during(what, limit: limit) {
        let id = OpenWaits.enclosing!
        return try await withoutActuallyEscaping(body) { body in
            try await withThrowingTaskGroup(of: BoundOutcome<Result>.self) { group in
                group.addTask { .done(try await body()) }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return .late
                }
                defer { group.cancelAll() }
                guard case .done(let result) = try await group.next()! else {
                    throw TestFailure("\(what): not done within \(limit), stuck in: \(OpenWaits.describe(inside: id))")
                }
                return result
            }
        }
    }
}

private enum BoundOutcome<Value: Sendable>: Sendable {
    case done(Value)
    case late
}

/// The thread that ends a hung run (see `OpenWaits`).
private enum Watchdog {
    static let lastProbe = Mutex<ContinuousClock.Instant>(.now)

    static let start: Void = {
        let thread = Thread {
            while true {
                Thread.sleep(forTimeInterval: 5)
                Task.detached { lastProbe.withLock { $0 = .now } }
                let now = ContinuousClock.now
                let overdue = OpenWaits.overdue(now: now)
                let silence = now - lastProbe.withLock { $0 }
                guard !overdue.isEmpty || silence > OpenWaits.poolSilence else { continue }
                let why = overdue.isEmpty
                    ? "no task has run for \(silence.components.seconds) s: the cooperative pool is stuck"
                    : "still open \(OpenWaits.grace.components.seconds) s past its bound, which no timeout could end: \(overdue.joined(separator: "; "))"
                // The stacks first: CI shows a log's end, where the summary belongs.
                FileHandle.standardError.write(Data("\nThe threads of the hung run:\n\(ThreadBacktraces.describe())\n".utf8))
                let text = "\nTHE TEST RUN HUNG, ended by the suite's watchdog (Tests/FamilySyncTestSupport/OpenWaits.swift): \(why).\nEvery wait open now:\n\(OpenWaits.report(now: now))\nThe parts running now:\n\(OpenWaits.reportStates())\n"
                FileHandle.standardError.write(Data(text.utf8))
                // exit, not _exit: the embedded cluster's atexit handler stops it.
                exit(EXIT_FAILURE)
            }
        }
        thread.name = "test watchdog"
        thread.start()
    }()
}
