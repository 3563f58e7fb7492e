@testable import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Testing

/// Every wait of the SDK ends when its task is cancelled: an app whose background time is up
/// cancels the task that loops over its engine's events, or the one awaiting a push's fetch, and
/// must see it end. Each wait is cancelled while it is parked, and before it parks.
@Suite struct SyncCancellationTests {
    @Test func aConsumerWaitingForTheNextEventEndsWhenCancelled() async throws {
        let handoff = EventHandoff()
        let waiting = Task { await handoff.next() }
        // Parked or about to park: either way the cancelled wait answers nil.
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        #expect(await OpenWaits.during("a cancelled consumer's next()", limit: .seconds(60)) { await waiting.value } == nil)
        // The events go on for a later consumer: nothing was taken.
        let sent = Task { await handoff.send(.waiting(FamilySyncError(.tryAgainLater, "x"), retryIn: .seconds(1))) }
        let event = await OpenWaits.during("the next consumer's event", limit: .seconds(60)) { await handoff.next() }
        #expect(event != nil)
        handoff.finish()
        await sent.value
    }

    @Test func aConsumerCancelledBeforeItAsksGetsNil() async {
        let handoff = EventHandoff()
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await handoff.next()
        }
        #expect(await OpenWaits.during("a consumer cancelled before it asked", limit: .seconds(60)) { await waiting.value } == nil)
    }

    /// The engine's side: a send parked until the app asks for the event ends when its task is
    /// cancelled, and ends the events; what it sent may still be taken, then the events answer nil.
    @Test func aSenderWaitingForTheConsumerEndsWhenCancelled() async throws {
        let handoff = EventHandoff()
        let sending = Task { await handoff.send(.waiting(FamilySyncError(.tryAgainLater, "x"), retryIn: .seconds(1))) }
        // Parked or about to park: either way the cancelled send returns.
        try await Task.sleep(for: .milliseconds(50))
        sending.cancel()
        await OpenWaits.during("a cancelled sender's send()", limit: .seconds(60)) { await sending.value }
        #expect(handoff.isFinished)
        let taken = await OpenWaits.during("the events after a cancelled send", limit: .seconds(60)) { () async -> Int in
            var taken = 0
            while await handoff.next() != nil { taken += 1 }
            return taken
        }
        #expect(taken <= 1)
    }

    /// A running engine whose app holds its first event: the fetch after a push never finishes,
    /// so the push's call waits, until its task is cancelled.
    @Test func aPushWaitingForARunningEnginesFetchEndsWhenCancelled() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let (_, _, _, client, store) = try await SyncEngineTests.setUp(server, directory)
                let engine = SyncEngine(client: client, store: store, pollTimeout: 30)
                let running = Task { await engine.run() }
                var events = engine.events.makeAsyncIterator()
                _ = try #require(await events.next("the engine's first event"))
                let pushed = Task { try await engine.pushReceived() }
                // Parked or about to park: either way the cancelled wait ends.
                try await Task.sleep(for: .milliseconds(50))
                pushed.cancel()
                let result = await OpenWaits.during("a cancelled push's wait", limit: .seconds(60)) { await pushed.result }
                #expect(throws: CancellationError.self) { try result.get() }
                running.cancel()
                await engine.stop()
                await OpenWaits.during("the engine's run after cancel", limit: .seconds(60)) { await running.value }
            }
        }
    }
}
