import FamilySyncPostgres

/// Runs `body` and fails if it has not finished within `limit`. A bound that tells "answers" from
/// "hangs" with a wide margin (the thing under test promises seconds, the limit is many times
/// that), never a measure of speed. `body` runs in a task of its own, so that a body that hangs
/// for ever fails the test instead of hanging the run (a task group would wait for it).
public func failingIfHung<Result: Sendable>(
    after limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await OpenWaits.during(what, limit: limit) {
        let id = OpenWaits.enclosing!
        return try await SingleOutcome.race(body, cancellingBodyWhenWatchWins: true) { resolve in
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            resolve(.failure(TestFailure("no answer within \(limit): \(what), stuck in: \(OpenWaits.describe(inside: id))")))
        }
    }
}
