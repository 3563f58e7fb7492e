/// Runs `body` and fails if it has not finished within `limit`. A bound that tells "answers" from
/// "hangs" with a wide margin (the thing under test promises seconds, the limit is many times
/// that), never a measure of speed.
public func failingIfHung<Result: Sendable>(
    after limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else {
            throw TestFailure("no answer within \(limit): \(what)")
        }
        return result
    }
}
