import FamilySyncCore
import Foundation
import Testing

/// A parent's grant (PROTOCOL §16) in the shield state: it opens its target until its end, and
/// that end is the next change.
@Suite struct GrantedShieldTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static func at(_ text: String) -> Date { Instant.parse(text)! }
    static let gaming = CategoryID(rawValue: "gaming")!
    static let bedtime = Schedule(
        scheduleID: "bedtime", name: "Bedtime", start: .init(hour: 21, minute: 0), end: .init(hour: 7, minute: 0), applications: ["tiktok", "youtube"],
        categories: [gaming]
    )

    /// A request asked at 21:30 local (19:30Z in summer) and approved then for `span`.
    static func granted(_ target: TimeRequestTarget, _ span: TimeSpan, at decision: Date = at("2026-07-01T19:30:00Z")) throws -> TimeRequest {
        guard case .made(let request) = try TimeRequest.ask(
            for: target, .minutes(15), note: nil, member: UUID(), device: UUID(), timeZone: berlin, at: decision, earlier: []
        ) else { throw GrantFailure() }
        return try request.deciding(.approve(span), reply: nil, by: UUID(), timeZone: berlin, at: decision)
    }

    @Test func anAppsGrantUnshieldsItUntilItEnds() throws {
        let grant = try Self.granted(.app(logicalID: "youtube"), .minutes(30))
        let during = ShieldState.at(Self.at("2026-07-01T19:45:00Z"), schedules: [Self.bedtime], blockedApps: ["youtube"], timeZone: Self.berlin, requests: [grant])
        #expect(during.applications == ["tiktok"])
        #expect(during.blockedApps.isEmpty)
        #expect(during.nextChangeAt == Self.at("2026-07-01T20:00:00Z"))
        #expect(during.openGrants.map(\.until) == [Self.at("2026-07-01T20:00:00Z")])
        let after = ShieldState.at(Self.at("2026-07-01T20:00:00Z"), schedules: [Self.bedtime], blockedApps: ["youtube"], timeZone: Self.berlin, requests: [grant])
        #expect(after.applications == ["tiktok", "youtube"])
        #expect(after.openGrants.isEmpty)
    }

    @Test func aSchedulesGrantLiftsItsShield() throws {
        let grant = try Self.granted(.schedule(scheduleID: "bedtime"), .minutes(15))
        let during = ShieldState.at(Self.at("2026-07-01T19:40:00Z"), schedules: [Self.bedtime], blockedApps: [], timeZone: Self.berlin, requests: [grant])
        #expect(during.activeSchedules.isEmpty && during.applications.isEmpty && during.categories.isEmpty)
        #expect(during.nextChangeAt == Self.at("2026-07-01T19:45:00Z"))
        let after = ShieldState.at(Self.at("2026-07-01T19:45:00Z"), schedules: [Self.bedtime], blockedApps: [], timeZone: Self.berlin, requests: [grant])
        #expect(after.activeSchedules.map(\.scheduleID) == ["bedtime"])
    }

    /// A category's grant lets it through an allow-only schedule too.
    @Test func aCategorysGrantPassesAnAllowOnlySchedule() throws {
        var homework = Self.bedtime
        homework.scheduleID = "homework"
        homework.mode = .allowOnly
        homework.applications = ["notes"]
        homework.categories = []
        let grant = try Self.granted(.category(Self.gaming), .restOfToday)
        let state = ShieldState.at(Self.at("2026-07-01T20:00:00Z"), schedules: [homework], blockedApps: [], timeZone: Self.berlin, requests: [grant])
        #expect(state.allowOnly?.categories == [Self.gaming])
        #expect(state.allowOnly?.applications == ["notes"])
        // The rest of the day ends at local midnight, 22:00Z.
        #expect(state.openGrants.map(\.until) == [Self.at("2026-07-01T22:00:00Z")])
    }

    /// A declined or pending request opens nothing.
    @Test func onlyAnApprovedGrantOpens() throws {
        var declined = try Self.granted(.app(logicalID: "youtube"), .minutes(30))
        declined.status = .declined
        let state = ShieldState.at(Self.at("2026-07-01T19:45:00Z"), schedules: [Self.bedtime], blockedApps: [], timeZone: Self.berlin, requests: [declined])
        #expect(state.applications == ["tiktok", "youtube"])
        #expect(state.openGrants.isEmpty)
    }
}

private struct GrantFailure: Error {}
