import FamilySyncCore
import Foundation
import Testing

/// PROTOCOL §11's schedules and the shield state they make, without a database, on hand-made
/// weeks in two time zones across both DST changes.
@Suite struct ShieldStateTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    static func at(_ text: String) -> Date { Instant.parse(text)! }
    static func time(_ hour: Int, _ minute: Int = 0) -> Schedule.TimeOfDay { .init(hour: hour, minute: minute) }

    /// The barebones seed: every day 21:00–07:00, two apps and the games category shielded.
    static let bedtime = Schedule(
        scheduleID: "bedtime", name: "Bedtime", start: Self.time(21), end: Self.time(7), applications: ["tiktok", "youtube"], categories: [CategoryID(rawValue: "gaming")!]
    )

    /// Berlin's clocks go back at 03:00 on 2026-10-25: that night has 11 hours, not 10.
    @Test func theNightClocksGoBackInBerlin() throws {
        // 23:30 CEST (UTC+2) on Saturday the 24th.
        let evening = ShieldState.at(Self.at("2026-10-24T21:30:00Z"), schedules: [Self.bedtime], blockedApps: [], timeZone: Self.berlin)
        #expect(evening.applications == ["tiktok", "youtube"] && evening.categories.map(\.rawValue) == ["gaming"])
        // 07:00 CET (UTC+1) on Sunday is 06:00Z: 8.5 hours away, not 7.5.
        #expect(evening.activeSchedules.map(\.until) == [Self.at("2026-10-25T06:00:00Z")])
        #expect(evening.nextChangeAt == Self.at("2026-10-25T06:00:00Z"))
        let occurrence = try #require(Self.bedtime.occurrences(from: Self.at("2026-10-24T12:00:00Z"), to: Self.at("2026-10-24T12:00:00Z"), in: Self.berlin).first)
        #expect(occurrence.duration == 11 * 3600)
        // 02:30 happens twice that night; both are inside the interval.
        for instant in ["2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z"] {
            #expect(ShieldState.at(Self.at(instant), schedules: [Self.bedtime], blockedApps: [], timeZone: Self.berlin).activeSchedules.count == 1)
        }
        // 07:00 CET: open until 21:00, which is 20:00Z.
        let morning = ShieldState.at(Self.at("2026-10-25T06:00:00Z"), schedules: [Self.bedtime], blockedApps: [], timeZone: Self.berlin)
        #expect(morning.activeSchedules.isEmpty && morning.applications.isEmpty && morning.nextChangeAt == Self.at("2026-10-25T20:00:00Z"))
        // Five minutes before (the default warning): upcoming.
        let warned = ShieldState.at(Self.at("2026-10-25T19:56:00Z"), schedules: [Self.bedtime], blockedApps: [], timeZone: Self.berlin)
        #expect(warned.upcoming.map(\.scheduleID) == ["bedtime"] && warned.activeSchedules.isEmpty)
    }

    /// Berlin's clocks jump forward at 02:00 on 2026-03-29: that night has 9 hours.
    @Test func theNightClocksGoForwardInBerlin() throws {
        let occurrence = try #require(Self.bedtime.occurrences(from: Self.at("2026-03-28T12:00:00Z"), to: Self.at("2026-03-28T12:00:00Z"), in: Self.berlin).first)
        #expect(occurrence.start == Self.at("2026-03-28T20:00:00Z") && occurrence.end == Self.at("2026-03-29T05:00:00Z"))
        #expect(occurrence.duration == 9 * 3600)
    }

    /// New York jumps from 02:00 to 03:00 on 2026-03-08: a schedule that ends at 02:30, a time that
    /// does not exist, ends at the first instant after the jump; one that starts then starts there.
    @Test func aTimeThatDoesNotExistIsTheFirstInstantAfterTheJump() throws {
        let early = Schedule(scheduleID: "early", name: "Early", start: Self.time(1, 30), end: Self.time(2, 30), applications: ["a"])
        let occurrence = try #require(early.occurrences(from: Self.at("2026-03-08T12:00:00Z"), to: Self.at("2026-03-08T12:00:00Z"), in: Self.newYork).first)
        #expect(occurrence.start == Self.at("2026-03-08T06:30:00Z"))
        #expect(occurrence.end == Self.at("2026-03-08T07:00:00Z"), "03:00 EDT")
        // New York's clocks go back on 2026-11-01: 01:30 happens twice, the schedule starts at the first.
        let late = Schedule(scheduleID: "late", name: "Late", start: Self.time(1, 30), end: Self.time(4), applications: ["a"])
        let fall = try #require(late.occurrences(from: Self.at("2026-11-01T12:00:00Z"), to: Self.at("2026-11-01T12:00:00Z"), in: Self.newYork).first)
        #expect(fall.start == Self.at("2026-11-01T05:30:00Z") && fall.end == Self.at("2026-11-01T09:00:00Z"))
    }

    /// An interval across midnight belongs to the weekday it starts on.
    @Test func weekdaysNameTheDayAnIntervalStarts() {
        // Fridays only (2026-11-20 is a Friday), 21:00–07:00 in New York (UTC−5).
        let friday = Schedule(scheduleID: "friday", name: "Friday night", start: Self.time(21), end: Self.time(7), weekdays: [5], applications: ["game"])
        func active(_ instant: String) -> Bool { !ShieldState.at(Self.at(instant), schedules: [friday], blockedApps: [], timeZone: Self.newYork).activeSchedules.isEmpty }
        #expect(active("2026-11-21T02:30:00Z"), "Friday 21:30")
        #expect(active("2026-11-21T11:30:00Z"), "Saturday 06:30, still Friday's night")
        #expect(!active("2026-11-22T02:30:00Z"), "Saturday 21:30")
        #expect(!active("2026-11-20T02:30:00Z"), "Thursday 21:30")
    }

    /// Overlapping schedules add up; `allowOnly` beside `shield`; a schedule disabled during its
    /// interval no longer counts.
    @Test func overlappingSchedulesAllowOnlyAndDisabling() {
        let homework = Schedule(scheduleID: "homework", name: "Homework", start: Self.time(16), end: Self.time(18), mode: .allowOnly, applications: ["khan", "notes"], categories: [.learning])
        let focus = Schedule(scheduleID: "focus", name: "Focus", start: Self.time(17), end: Self.time(19), mode: .allowOnly, applications: ["khan"], categories: [.learning])
        let social = Schedule(scheduleID: "social", name: "No social", start: Self.time(15), end: Self.time(20), applications: ["tiktok"], categories: [CategoryID(rawValue: "social_media")!])
        let at = Self.at("2026-11-20T16:30:00Z")  // 17:30 in Berlin
        let state = ShieldState.at(at, schedules: [homework, focus, social], blockedApps: ["minecraft"], timeZone: Self.berlin)
        #expect(state.activeSchedules.map(\.scheduleID) == ["focus", "homework", "social"])
        #expect(state.applications == ["tiktok"] && state.categories.map(\.rawValue) == ["social_media"])
        #expect(state.allowOnly == ShieldState.Allowed(applications: ["khan"], categories: [.learning]), "allowed by both")
        #expect(state.blockedApps == ["minecraft"])
        #expect(state.nextChangeAt == Self.at("2026-11-20T17:00:00Z"), "homework ends at 18:00")
        var stopped = homework
        stopped.enabled = false
        let after = ShieldState.at(at, schedules: [stopped, focus, social], blockedApps: [], timeZone: Self.berlin)
        #expect(after.activeSchedules.map(\.scheduleID) == ["focus", "social"])
        #expect(after.allowOnly?.applications == ["khan"])
        #expect(ShieldState.at(at, schedules: [social], blockedApps: [], timeZone: Self.berlin).allowOnly == nil)
    }

    @Test func aScheduleRecordIsValidated() throws {
        func fields(_ changes: [String: JSONValue?]) -> [String: JSONValue] {
            var fields: [String: JSONValue] = [
                "scheduleID": .string("bedtime"), "name": .string("Bedtime"), "enabled": .bool(true), "mode": .string("shield"),
                "intervalStart": .object(["hour": .number(21), "minute": .number(0)]), "intervalEnd": .object(["hour": .number(7), "minute": .number(0)]),
                "applications": .array([.string("tiktok")]), "categories": .array([.string("gaming")]), "weekdays": .array([.number(1), .number(7)]),
            ]
            for (key, value) in changes { fields[key] = value }
            return fields
        }
        try Schedule.validate(fields([:]), recordName: "schedule-bedtime", field: "f")
        let read = try #require(Schedule(fields: fields([:])))
        #expect(read.weekdays == [1, 7] && read.crossesMidnight && read.warningMinutes == 5)
        #expect(Schedule(fields: read.fields) == read)
        let bad: [([String: JSONValue?], String, String)] = [
            (["intervalEnd": .object(["hour": .number(21), "minute": .number(0)])], "schedule-bedtime", "f.intervalEnd"),
            (["intervalStart": .object(["hour": .number(24), "minute": .number(0)])], "schedule-bedtime", "f.intervalStart"),
            (["intervalStart": .object(["hour": .number(21), "minute": .number(60)])], "schedule-bedtime", "f.intervalStart"),
            (["intervalStart": .object(["hour": .number(21)])], "schedule-bedtime", "f.intervalStart"),
            (["weekdays": .array([.number(8)])], "schedule-bedtime", "f.weekdays"),
            (["weekdays": .array([.number(1), .number(1)])], "schedule-bedtime", "f.weekdays"),
            (["weekdays": .array([])], "schedule-bedtime", "f.weekdays"),
            (["categories": .array([.string("games")])], "schedule-bedtime", "f.categories"),
            (["mode": .string("block")], "schedule-bedtime", "f.mode"),
            (["warningTimeMinutes": .number(61)], "schedule-bedtime", "f.warningTimeMinutes"),
            (["colour": .string("red")], "schedule-bedtime", "f.colour"),
            (["name": nil], "schedule-bedtime", "f.name"),
            ([:], "schedule-other", "f.scheduleID"),
        ]
        for (changes, name, field) in bad {
            do {
                try Schedule.validate(fields(changes), recordName: name, field: "f")
                Issue.record("accepted \(changes)")
            } catch {
                #expect(error.code == .badRequest && error.field == field, "\(changes): \(error)")
            }
        }
    }
}
