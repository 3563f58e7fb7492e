import FamilySyncCore
import Foundation
import Testing

/// A child's request for more time and a parent's answer (PROTOCOL §16), as rules.
@Suite struct TimeRequestTests {
    let member = UUID(), device = UUID(), parent = UUID(), otherParent = UUID()
    let chicago = TimeZone(identifier: "America/Chicago")!
    /// 2026-03-07 20:00 in Chicago (02:00 UTC the next day).
    let evening = Date(timeIntervalSince1970: 1_772_935_200)

    func made(_ target: TimeRequestTarget = .app(logicalID: "minecraft"), _ span: TimeSpan = .minutes(15), at now: Date? = nil, earlier: [TimeRequest] = []) throws -> TimeRequest {
        guard case .made(let request) = try TimeRequest.ask(for: target, span, note: nil, member: member, device: device, timeZone: chicago, at: now ?? evening, earlier: earlier) else {
            throw Unexpected("not made")
        }
        return request
    }

    @Test func aRequestWaitsAnHourAndNeverPastTheChildsDay() throws {
        let request = try made()
        #expect(request.status == .pending)
        #expect(request.date == "2026-03-07")
        #expect(request.expiresAt == evening.addingTimeInterval(3600))
        // At 23:30 local, it expires at midnight.
        let late = try made(at: evening.addingTimeInterval(3.5 * 3600))
        #expect(late.expiresAt == evening.addingTimeInterval(4 * 3600))
        #expect(late.expiringIfDue(at: late.expiresAt).status == .expired)
        #expect(late.expiringIfDue(at: late.expiresAt.addingTimeInterval(-1)).status == .pending)
    }

    /// Asking again for the same target answers the pending request; another target is a new one.
    @Test func onePendingRequestATarget() throws {
        let first = try made()
        let again = try TimeRequest.ask(for: .app(logicalID: "minecraft"), .minutes(60), note: "please", member: member, device: device, timeZone: chicago, at: evening.addingTimeInterval(60), earlier: [first])
        #expect(again == .pending(first))
        guard case .made = try TimeRequest.ask(for: .allScreenTime, .minutes(15), note: nil, member: member, device: device, timeZone: chicago, at: evening, earlier: [first]) else {
            throw Unexpected("another target is a new request")
        }
        // Once the first has expired, the same target is asked anew.
        guard case .made = try TimeRequest.ask(for: .app(logicalID: "minecraft"), .minutes(15), note: nil, member: member, device: device, timeZone: chicago, at: first.expiresAt, earlier: [first]) else {
            throw Unexpected("an expired request does not hold its target")
        }
    }

    /// The eleventh request of a day is 429 until the device's midnight.
    @Test func tenADayThenTryAgainTomorrow() throws {
        var earlier: [TimeRequest] = []
        for index in 0..<TimeRequest.dailyLimit {
            var request = try made(.schedule(scheduleID: "s\(index)"), earlier: earlier)
            request.status = .declined
            earlier.append(request)
        }
        #expect(performing: { try self.made(.schedule(scheduleID: "one more"), earlier: earlier) }, throws: { error in
            guard let error = error as? FamilySyncError else { return false }
            return error.code == .throttled && error.retryAfter == 4 * 3600
        })
        // The next local day starts afresh.
        _ = try made(.schedule(scheduleID: "tomorrow"), at: evening.addingTimeInterval(4 * 3600 + 1), earlier: earlier)
    }

    @Test func theFirstDecisionStands() throws {
        let request = try made()
        let approved = try request.deciding(.approve(.minutes(15)), reply: "ok", by: parent, timeZone: chicago, at: evening.addingTimeInterval(120))
        #expect(approved.status == .approved)
        #expect(approved.until == evening.addingTimeInterval(120 + 15 * 60))
        #expect(approved.decidedBy == parent)
        #expect(approved.reply == "ok")
        #expect(performing: { try approved.deciding(.decline, reply: nil, by: self.otherParent, timeZone: self.chicago, at: self.evening.addingTimeInterval(130)) }, throws: {
            ($0 as? FamilySyncError)?.code == .conflict
        })
        // An expired request cannot be decided either.
        #expect(performing: { try request.deciding(.decline, reply: nil, by: self.parent, timeZone: self.chicago, at: request.expiresAt) }, throws: {
            ($0 as? FamilySyncError)?.reason.contains("expired") == true
        })
    }

    /// A grant ends at the end of the request's day at the latest, and the rest of the day is that end.
    @Test func aGrantNeverOutlastsTheDay() throws {
        let late = try made(at: evening.addingTimeInterval(3.5 * 3600))
        let hour = try late.deciding(.approve(.minutes(60)), reply: nil, by: parent, timeZone: chicago, at: evening.addingTimeInterval(3.5 * 3600 + 60))
        #expect(hour.until == evening.addingTimeInterval(4 * 3600))
        let rest = try made().deciding(.approve(.restOfToday), reply: nil, by: parent, timeZone: chicago, at: evening)
        #expect(rest.until == evening.addingTimeInterval(4 * 3600))
        #expect(rest.isOpen(at: evening.addingTimeInterval(3600)))
        #expect(!rest.isOpen(at: evening.addingTimeInterval(4 * 3600)))
    }

    /// Across a daylight-saving change the grant is the minutes granted, measured from the decision.
    @Test func aGrantIsMeasuredFromTheDecisionAcrossDaylightSaving() throws {
        // 2026-03-08 01:50 in Chicago; clocks go from 02:00 to 03:00.
        let beforeTheChange = Date(timeIntervalSince1970: 1_772_956_200)
        let request = try made(at: beforeTheChange)
        let approved = try request.deciding(.approve(.minutes(30)), reply: nil, by: parent, timeZone: chicago, at: beforeTheChange)
        #expect(approved.until == beforeTheChange.addingTimeInterval(30 * 60))
    }

    @Test(arguments: [
        (15, nil, true), (30, nil, true), (60, nil, true), (20, nil, false), (nil, true, true), (15, true, false), (nil, nil, false), (nil, false, false),
    ] as [(Int?, Bool?, Bool)])
    func aChildAsksForTheOfferedSpans(_ minutes: Int?, _ rest: Bool?, _ valid: Bool) {
        #expect(((try? TimeSpan(minutes: minutes, restOfToday: rest, field: "")) != nil) == valid)
    }

    @Test func aParentMayGrantOtherMinutesWithinTheBound() throws {
        #expect(try TimeSpan(minutes: 45, restOfToday: nil, allowed: TimeSpan.approvable, field: "decision") == .minutes(45))
        #expect(performing: { try TimeSpan(minutes: 481, restOfToday: nil, allowed: TimeSpan.approvable, field: "decision") }, throws: {
            ($0 as? FamilySyncError)?.field == "decision.minutes"
        })
    }

    @Test func aTargetIsReadOrRefusedOnItsMember() throws {
        #expect(try TimeRequestTarget(kind: "budget", id: "*", field: "target") == .allScreenTime)
        #expect(try TimeRequestTarget(kind: "app", id: "minecraft", field: "target") == .app(logicalID: "minecraft"))
        #expect(performing: { try TimeRequestTarget(kind: "budget", id: "games", field: "target") }, throws: { ($0 as? FamilySyncError)?.field == "target.id" })
        #expect(performing: { try TimeRequestTarget(kind: "website", id: "x", field: "target") }, throws: { ($0 as? FamilySyncError)?.field == "target.kind" })
        #expect(performing: { try TimeRequestTarget(kind: "app", id: "", field: "target") }, throws: { ($0 as? FamilySyncError)?.field == "target.id" })
    }

    @Test func aNoteOrReplyIsShortAndNotBlank() throws {
        #expect(performing: {
            try TimeRequest.ask(for: .allScreenTime, .minutes(15), note: "  ", member: self.member, device: self.device, timeZone: self.chicago, at: self.evening, earlier: [])
        }, throws: { ($0 as? FamilySyncError)?.field == "note" })
        #expect(performing: { try self.made().deciding(.decline, reply: String(repeating: "x", count: 201), by: self.parent, timeZone: self.chicago, at: self.evening) }, throws: {
            ($0 as? FamilySyncError)?.field == "reply"
        })
    }

    /// An app's grant lifts its category's budget and all screen time's; a schedule's none.
    @Test func whichBudgetsAGrantLifts() throws {
        let games = CategoryID.reward
        let categoryOfApp: (String) -> CategoryID? = { $0 == "minecraft" ? games : nil }
        var approved = try made().deciding(.approve(.minutes(15)), reply: nil, by: parent, timeZone: chicago, at: evening)
        let another = try made(.category(games)).deciding(.approve(.minutes(30)), reply: nil, by: parent, timeZone: chicago, at: evening)
        let shield = try made(.schedule(scheduleID: "bedtime")).deciding(.approve(.restOfToday), reply: nil, by: parent, timeZone: chicago, at: evening)
        let all = [approved, another, shield]
        #expect(GrantedAllowance.of(.category(games), on: "2026-03-07", requests: all, categoryOfApp: categoryOfApp) == .minutes(45))
        #expect(GrantedAllowance.of(.all, on: "2026-03-07", requests: all, categoryOfApp: categoryOfApp) == .minutes(45))
        #expect(GrantedAllowance.of(.category(.learning), on: "2026-03-07", requests: all, categoryOfApp: categoryOfApp) == .minutes(0))
        #expect(GrantedAllowance.of(.all, on: "2026-03-08", requests: all, categoryOfApp: categoryOfApp) == .minutes(0))
        approved.granted = .restOfToday
        #expect(GrantedAllowance.of(.category(games), on: "2026-03-07", requests: [approved], categoryOfApp: categoryOfApp) == .restOfDay)
        // A declined or pending request grants nothing.
        #expect(GrantedAllowance.of(.all, on: "2026-03-07", requests: [try made()], categoryOfApp: categoryOfApp) == .minutes(0))
    }
}

private struct Unexpected: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A request as its record's fields and back, undecided and decided.
@Suite struct TimeRequestFieldsTests {
    @Test func aRequestReadsBackFromItsFields() throws {
        let chicago = TimeZone(identifier: "America/Chicago")!
        let now = Date(timeIntervalSince1970: 1_772_935_200)
        guard case .made(let asked) = try TimeRequest.ask(
            for: .category(.reward), .restOfToday, note: "the last level", member: UUID(), device: UUID(), timeZone: chicago, at: now, earlier: []
        ) else { throw FieldsFailure() }
        #expect(TimeRequest(fields: asked.fields) == asked)
        #expect(asked.fields["restOfToday"] == .bool(true))
        #expect(asked.fields["decidedAt"] == nil)
        let approved = try asked.deciding(.approve(.minutes(45)), reply: "45, then bed", by: UUID(), timeZone: chicago, at: now.addingTimeInterval(60))
        #expect(TimeRequest(fields: approved.fields) == approved)
        #expect(approved.fields["grantedMinutes"] == .number(45))
        let declined = try asked.deciding(.decline, reply: nil, by: UUID(), timeZone: chicago, at: now.addingTimeInterval(60))
        #expect(TimeRequest(fields: declined.fields) == declined)
        #expect(TimeRequest(fields: ["requestId": .string("nope")]) == nil)
    }
}

private struct FieldsFailure: Error {}
