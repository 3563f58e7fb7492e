import FamilySyncCore
@testable import FamilySyncServer
import Foundation
import Synchronization
import Testing

/// The in-memory side of long polls, without a server: who is woken, and what a wake carries.
@Suite struct PollHubTests {
    static let family = UUID()

    static func device(_ role: DeviceRole = .child) -> AuthenticatedDevice {
        AuthenticatedDevice(familyID: family, deviceID: UUID(), role: role, status: .active)
    }

    /// A deadline no case reaches: taken when asked, not once per process (a case that started
    /// more than 30 s into the run would otherwise find it passed).
    static var soon: ContinuousClock.Instant { .now + .seconds(30) }

    /// A notice that arrives between subscribing and waiting is kept, not lost.
    @Test func aNoticeBeforeTheWaitIsKept() async {
        let hub = PollHub()
        let child = Self.device()
        let ticket = hub.subscribe(child)
        hub.deliver(.zone(Device.zoneName(forChild: child.deviceID), of: Self.family))
        guard case .recheck = await hub.wait(ticket, until: Self.soon) else {
            Issue.record("the notice was lost")
            return
        }
        hub.unsubscribe(ticket)
        #expect(hub.count == 0)
    }

    /// The gauge counts a poll from its first wait (its first read done) until it goes: a
    /// watcher that sees it has a poll that holds, not one that can still answer 503.
    @Test func theGaugeCountsAPollOnceItWaits() async {
        let counted = Mutex(0)
        let hub = PollHub { delta in counted.withLock { $0 += delta } }
        let ticket = hub.subscribe(Self.device())
        #expect(counted.withLock { $0 } == 0, "counted while it reads")
        #expect(await hub.wait(ticket, until: .now + .milliseconds(20)) == .timedOut)
        #expect(counted.withLock { $0 } == 1)
        #expect(await hub.wait(ticket, until: .now + .milliseconds(20)) == .timedOut)
        #expect(counted.withLock { $0 } == 1, "counted again on its second wait")
        hub.unsubscribe(ticket)
        #expect(counted.withLock { $0 } == 0)
        // A poll that never waited (its first read failed) leaves the gauge as it was.
        hub.unsubscribe(hub.subscribe(Self.device()))
        #expect(counted.withLock { $0 } == 0)
    }

    @Test func onlyTheConcernedAreWoken() async {
        let hub = PollHub()
        let child = Self.device(), sibling = Self.device(), parent = Self.device(.parent)
        let tickets = [child, sibling, parent].map(hub.subscribe)
        hub.deliver(.zone(Device.zoneName(forChild: child.deviceID), of: Self.family))
        hub.deliver(.zone("family", of: UUID()))
        let shortly = ContinuousClock.now + .milliseconds(200)
        let wakes = await withTaskGroup(of: (Int, PollHub.Wake).self) { group in
            for (index, ticket) in tickets.enumerated() { group.addTask { (index, await hub.wait(ticket, until: shortly)) } }
            return await group.reduce(into: [Int: PollHub.Wake]()) { $0[$1.0] = $1.1 }
        }
        #expect(wakes[0].map { if case .recheck = $0 { true } else { false } } == true)
        #expect(wakes[1] == .timedOut)
        #expect(wakes[2].map { if case .recheck = $0 { true } else { false } } == true)
    }

    @Test func aFifthPollOfADeviceSupersedesTheOldest() async {
        let hub = PollHub()
        let child = Self.device()
        let tickets = (0..<LongPollRules.maximumPerDevice).map { _ in hub.subscribe(child) }
        let other = hub.subscribe(Self.device())
        let fifth = hub.subscribe(child)
        #expect(await hub.wait(tickets[0], until: Self.soon) == .superseded)
        // Superseding is final: a later wait of the same poll sees it again.
        #expect(await hub.wait(tickets[0], until: Self.soon) == .superseded)
        let shortly = ContinuousClock.now + .milliseconds(50)
        #expect(await hub.wait(tickets[1], until: shortly) == .timedOut)
        #expect(await hub.wait(other, until: shortly) == .timedOut)
        #expect(await hub.wait(fifth, until: shortly) == .timedOut)
    }

    /// After the listener reconnects every poll reads again; a release answers one at once.
    @Test func wakeAllAndRelease() async {
        let hub = PollHub()
        let first = hub.subscribe(Self.device()), second = hub.subscribe(Self.device(.parent))
        hub.wakeAll()
        guard case .recheck = await hub.wait(first, until: Self.soon), case .recheck = await hub.wait(second, until: Self.soon) else {
            Issue.record("wakeAll did not wake both")
            return
        }
        hub.release(first, .shuttingDown)
        #expect(await hub.wait(first, until: Self.soon) == .shuttingDown)
    }

    @Test func aCancelledWaitEndsAtOnceAndKeepsNothing() async {
        let hub = PollHub()
        let ticket = hub.subscribe(Self.device())
        let waiting = Task { await hub.wait(ticket, until: Self.soon) }
        try? await Task.sleep(for: .milliseconds(20))
        waiting.cancel()
        #expect(await waiting.value == .cancelled)
        hub.unsubscribe(ticket)
        #expect(hub.count == 0)
    }
}
