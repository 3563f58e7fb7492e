import FamilySyncCore
import Foundation
import Testing

/// PROTOCOL §5.3–§5.4's write decision, without a database: what each operation makes of the
/// stored record, and when it fails (with the server's record where a conflict hands it back).
@Suite struct WriteDecisionTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let family = UUID()
    static let parent = AuthenticatedDevice(familyID: family, deviceID: UUID(), role: .parent, status: .active)
    static let otherParent = AuthenticatedDevice(familyID: family, deviceID: UUID(), role: .parent, status: .active)
    static let child = AuthenticatedDevice(familyID: family, deviceID: UUID(), role: .child, status: .active)
    static let fields: [String: JSONValue] = [
        "logicalID": .string("app"), "displayName": .string("App"), "category": .string("learning"), "isEnabled": .bool(true), "blockingEnabled": .bool(false),
    ]

    static func stored(_ type: String = "AppConfiguration", tag: String = "7", deleted: Bool = false, by writer: AuthenticatedDevice = otherParent, at time: Date) -> Record {
        Record(
            recordName: "r", recordType: type, fields: fields, changeTag: tag, deleted: deleted, createdAt: time, createdBy: writer.deviceID,
            modifiedAt: time, modifiedBy: writer.deviceID, modifiedRole: WriterRole(writer.role), clientModifiedAt: time
        )
    }

    static func write(_ type: RecordOperationType, recordType: String? = "AppConfiguration", tag: String? = nil, fields: [String: JSONValue]? = fields, at time: Date? = nil) -> RecordWrite {
        RecordWrite(type: type, recordName: "r", recordType: recordType, fields: fields, changeTag: tag, clientModifiedAt: time, path: "operations[0]")
    }

    static func failure(_ body: () throws -> Void) -> WriteDecision.Failure? {
        do { try body() } catch { return error as? WriteDecision.Failure }
        return nil
    }

    @Test func aCreateOfANewRecordIsCreatedByTheCaller() throws {
        let decision = try WriteDecision.decide(Self.write(.create), stored: nil, caller: Self.parent, zoneKind: .child, now: Self.now)
        #expect(decision.outcome == .created)
        #expect(!decision.incomingWon)
        #expect(decision.record.createdBy == Self.parent.deviceID && decision.record.createdAt == Self.now)
        #expect(decision.record.modifiedRole == .parent)
    }

    @Test func aCreateOverALiveRecordFailsWithTheServerRecord() {
        let stored = Self.stored(at: Self.now.addingTimeInterval(-60))
        let failure = Self.failure { _ = try WriteDecision.decide(Self.write(.create), stored: stored, caller: Self.parent, zoneKind: .child, now: Self.now) }
        #expect(failure?.error.code == .exists)
        #expect(failure?.serverRecord == stored)
    }

    @Test func aStaleTagLosesToANewerStoredWriteAndWinsOverAnOlderOne() throws {
        let newer = Self.stored(at: Self.now.addingTimeInterval(-10))
        let stale = Self.write(.update, tag: "3", at: Self.now.addingTimeInterval(-20))
        let failure = Self.failure { _ = try WriteDecision.decide(stale, stored: newer, caller: Self.parent, zoneKind: .child, now: Self.now) }
        #expect(failure?.error.code == .conflict)
        #expect(failure?.serverRecord == newer)

        let older = Self.stored(at: Self.now.addingTimeInterval(-30))
        let decision = try WriteDecision.decide(stale, stored: older, caller: Self.parent, zoneKind: .child, now: Self.now)
        #expect(decision.incomingWon)
        #expect(decision.outcome == .updated)
        #expect(decision.record.createdBy == Self.otherParent.deviceID, "an update keeps who created the record")
    }

    @Test func aTieOfInstantsGoesToTheParent() throws {
        let time = Self.now.addingTimeInterval(-10)
        let byChild = Self.stored("DeviceSettings", by: Self.child, at: time)
        let decision = try WriteDecision.decide(Self.write(.replace, recordType: "DeviceSettings", tag: "1", at: time), stored: byChild, caller: Self.parent, zoneKind: .child, now: Self.now)
        #expect(decision.incomingWon)
    }

    @Test func aCustomTypeNeverResolvesAStaleTag() {
        let stored = Self.stored("x-note", at: Self.now.addingTimeInterval(-30))
        let failure = Self.failure {
            _ = try WriteDecision.decide(Self.write(.replace, recordType: "x-note", tag: "1", at: Self.now), stored: stored, caller: Self.parent, zoneKind: .custom, now: Self.now)
        }
        #expect(failure?.error.code == .conflict)
    }

    @Test func deletesKeepTheFieldsAndForceDeleteOfNothingIsNotFound() throws {
        let stored = Self.stored(at: Self.now.addingTimeInterval(-30))
        let decision = try WriteDecision.decide(Self.write(.delete, tag: "7", fields: nil), stored: stored, caller: Self.parent, zoneKind: .child, now: Self.now)
        #expect(decision.outcome == .deleted)
        #expect(decision.record.deleted && decision.record.fields == stored.fields)
        let failure = Self.failure { _ = try WriteDecision.decide(Self.write(.forceDelete, fields: nil), stored: nil, caller: Self.parent, zoneKind: .child, now: Self.now) }
        #expect(failure?.error.code == .notFound)
    }

    @Test func anUpdateMergesAndNullRemovesAMember() throws {
        var stored = Self.stored(at: Self.now.addingTimeInterval(-30))
        stored.fields["sfSymbolName"] = .string("star")
        let decision = try WriteDecision.decide(
            Self.write(.update, tag: "7", fields: ["displayName": .string("New"), "sfSymbolName": .null]), stored: stored, caller: Self.parent, zoneKind: .child, now: Self.now
        )
        #expect(decision.record.fields["displayName"] == .string("New"))
        #expect(decision.record.fields["sfSymbolName"] == nil)
        #expect(decision.record.fields["logicalID"] == .string("app"))
    }

    @Test func theSchemaDecidesWhoWritesWhatWhere() {
        // A child creates its own app list (§11), but neither forces nor deletes, nor writes settings.
        #expect(Self.failure { _ = try WriteDecision.decide(Self.write(.create), stored: nil, caller: Self.child, zoneKind: .child, now: Self.now) } == nil)
        let forcedByChild = Self.failure { _ = try WriteDecision.decide(Self.write(.forceReplace), stored: Self.stored(at: Self.now), caller: Self.child, zoneKind: .child, now: Self.now) }
        #expect(forcedByChild?.error.code == .accessDenied)
        let settingsByChild = Self.failure { _ = try WriteDecision.decide(Self.write(.create, recordType: "DeviceSettings"), stored: nil, caller: Self.child, zoneKind: .child, now: Self.now) }
        #expect(settingsByChild?.error.code == .accessDenied)
        let summary = Self.failure { _ = try WriteDecision.decide(Self.write(.create, recordType: "DailySummary"), stored: nil, caller: Self.parent, zoneKind: .child, now: Self.now) }
        #expect(summary?.error.code == .accessDenied)
        let wrongType = Self.failure {
            _ = try WriteDecision.decide(Self.write(.forceReplace, recordType: "DeviceSettings"), stored: Self.stored(at: Self.now), caller: Self.parent, zoneKind: .child, now: Self.now)
        }
        #expect(wrongType?.error.field == "operations[0].record.recordType")
        let tooLarge = Self.failure {
            _ = try WriteDecision.decide(
                Self.write(.create, recordType: "x-blob", fields: ["data": .string(String(repeating: "a", count: RecordSchema.maximumFieldsBytes))]),
                stored: nil, caller: Self.parent, zoneKind: .custom, now: Self.now
            )
        }
        #expect(tooLarge?.error.code == .limitExceeded)
    }
}
