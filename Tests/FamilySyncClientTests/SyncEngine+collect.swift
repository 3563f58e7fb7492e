import FamilySyncClient
import FamilySyncTestSupport

extension SyncEngine {
    /// Runs `work` (fetches) while taking the engine's events, as an app does, then ends the
    /// events and answers every one that came.
    func collectEvents(while work: @escaping @Sendable (SyncEngine) async throws -> Void) async throws -> [SyncEvent] {
        let running = Task {
            do {
                try await work(self)
            } catch {
                await stop()
                throw error
            }
            await stop()
        }
        var seen: [SyncEvent] = []
        for await event in events { seen.append(event) }
        try await running.value
        return seen
    }
}

extension SyncEvents.AsyncIterator {
    /// The engine's next event, as a named wait of the suite: a test stuck here says so.
    mutating func next(_ what: String) async -> SyncEvent? {
        await OpenWaits.during(what, limit: .seconds(300)) { await next() }
    }
}
