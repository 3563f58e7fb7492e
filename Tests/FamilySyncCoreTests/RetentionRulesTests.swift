import FamilySyncCore
import Foundation
import Testing

/// How long usage is kept for an upload's checks (§15.1): the server's retention, or the family's
/// own when shorter; one rule for the controller's early check and the store's.
@Suite struct RetentionRulesTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let day: TimeInterval = 86_400

    @Test func theShorterOfTheServersAndTheFamilysRetention() {
        #expect(RetentionSettings.keptSeconds(server: 400 * Self.day, familyDays: nil) == 400 * Self.day)
        #expect(RetentionSettings.keptSeconds(server: 400 * Self.day, familyDays: 30) == 30 * Self.day)
        #expect(RetentionSettings.keptSeconds(server: 10 * Self.day, familyDays: 30) == 10 * Self.day)
    }

    @Test func theFirstSessionOlderThanKeptIsRefusedByName() throws {
        let recent = Self.now.addingTimeInterval(-2 * Self.day), old = Self.now.addingTimeInterval(-40 * Self.day)
        try RetentionSettings.checkKept([recent, old], server: 400 * Self.day, familyDays: nil, now: Self.now) { "records[\($0)].sessionEnd" }
        #expect(throws: FamilySyncError.badRequest("The session ended longer ago than usage is kept (30 days).", field: "records[1].sessionEnd")) {
            try RetentionSettings.checkKept([recent, old], server: 400 * Self.day, familyDays: 30, now: Self.now) { "records[\($0)].sessionEnd" }
        }
    }

    @Test func aUsagePagesCursorGoesOutAndComesBack() throws {
        let cursor = UsageSession.PageCursor(sessionEnd: "2026-11-27T10:00:00.000Z", recordName: UsageSession.recordName(UUID()))
        #expect(try UsageSession.PageCursor(text: cursor.text) == cursor)
        for text in ["", "not base64!", Data("2026-11-27T10:00:00Z\nbudget-x".utf8).base64EncodedString(), Data("yesterday\nusage-x".utf8).base64EncodedString()] {
            #expect(throws: FamilySyncError.badRequest("The cursor is not one this server gave.", field: "cursor")) { try UsageSession.PageCursor(text: text) }
        }
    }
}
