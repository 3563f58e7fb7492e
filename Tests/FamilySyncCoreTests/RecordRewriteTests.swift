import FamilySyncCore
import Foundation
import Testing

/// What the server writes over a stored record: a rewrite's stamps, a tombstone's shape (§5.2),
/// and a parent's dismissal of an alert (§9.4).
@Suite struct RecordRewriteTests {
    static let then = Date(timeIntervalSince1970: 1_795_000_000), now = then.addingTimeInterval(3_600)
    static let child = UUID(), parent = UUID()

    static func stored(_ fields: [String: JSONValue], type: String = RecordTypeName.deviceSettings) -> Record {
        Record(
            recordName: "r", recordType: type, fields: fields, changeTag: "7", deleted: false, createdAt: then, createdBy: child,
            modifiedAt: then, modifiedBy: child, modifiedRole: .child, clientModifiedAt: then
        )
    }

    @Test func aServersTombstoneKeepsTheLastWriterAndHoldsNoFields() {
        let tombstone = Self.stored(["a": .number(1)]).tombstone(by: nil, role: .server, at: Self.now)
        #expect(tombstone.deleted && tombstone.fields.isEmpty)
        #expect(tombstone.modifiedBy == Self.child && tombstone.modifiedRole == .server)
        #expect(tombstone.modifiedAt == Self.now && tombstone.clientModifiedAt == Self.now)
        #expect(tombstone.recordName == "r" && tombstone.recordType == RecordTypeName.deviceSettings && tombstone.createdAt == Self.then)
        let byParent = Self.stored([:]).tombstone(by: Self.parent, role: .parent, at: Self.now)
        #expect(byParent.modifiedBy == Self.parent && byParent.modifiedRole == .parent)
    }

    @Test func anAlertIsDismissedOnce() throws {
        let alert = Alert(
            alertID: UUID(), kind: .tracking, memberID: UUID(), deviceID: Self.child, category: nil, budgetID: nil, date: "2026-11-27",
            budgetMinutes: nil, usedMinutes: nil, percent: nil, message: "Tracking stopped.", createdAt: Self.then, dismissedAt: nil
        )
        let stored = Self.stored(alert.fields, type: RecordTypeName.alert)
        let first = try #require(Alert.dismissing(stored, by: Self.parent, at: Self.now))
        #expect(first.alert.dismissedAt == Self.now)
        let write = try #require(first.write)
        #expect(write.modifiedBy == Self.parent && write.modifiedRole == .parent && Alert(fields: write.fields)?.dismissedAt == Self.now)
        let again = try #require(Alert.dismissing(write, by: UUID(), at: Self.now.addingTimeInterval(60)))
        #expect(again.write == nil && again.alert.dismissedAt == Self.now, "the first dismissal stands")
        #expect(Alert.dismissing(Self.stored(["a": .number(1)]), by: Self.parent, at: Self.now)?.alert == nil, "no alert in it")
    }
}
