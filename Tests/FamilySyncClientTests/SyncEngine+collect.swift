import FamilySyncClient
import FamilySyncTestSupport

extension SyncEngine {
    /// Runs `work` (fetches) while taking the engine's events, as an app does, then ends the
    /// events and answers every one that came.
    func collectEvents(while work: @escaping @Sendable (SyncEngine) async throws -> Void) async throws -> [SyncEvent] {
        // Each side a named wait: a run that hangs here says which side it hung on.
        let running = Task {
            let working = OpenWaits.open("the engine's work while its events are collected", limit: .seconds(300))
            do {
                try await work(self)
            } catch {
                OpenWaits.close(working)
                await stop()
                throw error
            }
            OpenWaits.close(working)
            await stop()
        }
        var seen: [SyncEvent] = []
        var iterator = events.makeAsyncIterator()
        while let event = await iterator.next("the engine's next event while collecting") { seen.append(event) }
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
