import FamilySyncCore
import Foundation
import Testing

/// §7.1's list as one request makes it: expiry on the way, delivery only to the target child and
/// only of what it is handed, the filter on the status at arrival; and who a command concerns.
@Suite struct CommandListingTests {
    static let created = Date(timeIntervalSince1970: 1_800_000_000)
    static let now = created.addingTimeInterval(120)

    static func command(_ status: CommandStatus, at offset: TimeInterval = 0, expiresIn: TimeInterval = 3600) -> Command {
        Command(
            commandID: UUID(), targetDeviceID: UUID(), commandType: "block", payload: [:], status: status, createdAt: created.addingTimeInterval(offset),
            createdBy: UUID(), expiresAt: created.addingTimeInterval(expiresIn)
        )
    }

    @Test func theChildsFetchDeliversWhatItIsHanded() throws {
        let second = Self.command(.pending, at: 1)
        let first = Self.command(.pending)
        let done = Self.command(.executed, at: 2)
        let listing = try CommandListing([second, first, done], status: .pending, deliveringToTarget: true, at: Self.now)
        #expect(listing.listed.map(\.commandID) == [first.commandID, second.commandID], "oldest first")
        #expect(listing.listed.allSatisfy { $0.status == .delivered && $0.deliveredAt == Self.now })
        #expect(Set(listing.changed.map(\.commandID)) == [first.commandID, second.commandID])
    }

    @Test func askingForOtherCommandsDeliversNothing() throws {
        let pending = Self.command(.pending)
        let listing = try CommandListing([pending], status: .executed, deliveringToTarget: true, at: Self.now)
        #expect(listing.listed.isEmpty && listing.changed.isEmpty)
    }

    @Test func aParentsLookChangesNothingButExpiry() throws {
        let pending = Self.command(.pending)
        let late = Self.command(.delivered, at: 1, expiresIn: 60)
        let listing = try CommandListing([pending, late], status: nil, deliveringToTarget: false, at: Self.now)
        #expect(listing.listed.map(\.status) == [.pending, .expired])
        #expect(listing.changed.map(\.commandID) == [late.commandID])
        let open = try CommandListing([pending, late], status: .open, deliveringToTarget: false, at: Self.now)
        #expect(open.listed.map(\.commandID) == [pending.commandID], "the filter sees the status after expiry")
        #expect(open.changed.map(\.commandID) == [late.commandID], "expired even when not listed")
    }

    @Test func aCommandConcernsParentsAndItsTarget() {
        let command = Self.command(.pending)
        let family = UUID()
        #expect(command.concerns(AuthenticatedDevice(familyID: family, deviceID: UUID(), role: .parent, status: .active)))
        #expect(command.concerns(AuthenticatedDevice(familyID: family, deviceID: command.targetDeviceID, role: .child, status: .active)))
        #expect(!command.concerns(AuthenticatedDevice(familyID: family, deviceID: UUID(), role: .child, status: .active)))
    }

    @Test func aSentCommandIsPendingUntilItsExpiry() {
        let child = UUID(), parent = UUID()
        let sent = Command.sent("block", payload: [:], expiresIn: 60, to: child, by: parent, at: Self.created)
        #expect(sent.status == .pending && sent.targetDeviceID == child && sent.createdBy == parent)
        #expect(sent.expiresAt == Self.created.addingTimeInterval(60))
        let record = sent.record(by: parent, role: .parent, createdAt: Self.created, at: Self.now)
        #expect(record.recordName == sent.recordName && record.recordType == "ConfigurationCommand" && Command(fields: record.fields) == sent)
        #expect(record.modifiedAt == Self.now && record.createdBy == parent)
    }

    @Test func configurationReplacesItsLogicalIDOrIsNew() throws {
        let parent = AuthenticatedDevice(familyID: UUID(), deviceID: UUID(), role: .parent, status: .active)
        let author = UUID()
        let stored = Record(
            recordName: "app-1", recordType: "AppConfiguration", fields: [:], changeTag: "3", deleted: false, createdAt: Self.created, createdBy: author,
            modifiedAt: Self.created, modifiedBy: author, modifiedRole: .parent, clientModifiedAt: Self.created
        )
        var tombstone = stored
        tombstone.recordName = "app-3"
        tombstone.deleted = true
        let configuration: [[String: JSONValue]] = [["logicalID": .string("app-1")], ["logicalID": .string("app-2")], ["logicalID": .string("app-3")]]
        #expect(Command.logicalIDs(of: configuration) == ["app-1", "app-2", "app-3"])
        let records = try Command.configurationRecords(configuration, existing: ["app-1": stored, "app-3": tombstone], by: parent, at: Self.now)
        #expect(records[0].recordName == "app-1" && records[0].createdAt == Self.created && records[0].createdBy == author)
        #expect(records[1].recordName.hasPrefix("config-") && records[1].createdAt == Self.now && records[1].createdBy == parent.deviceID)
        #expect(records[2].recordName == "app-3" && records[2].createdAt == Self.now, "a tombstone is made anew")
        let missing = #expect(throws: FamilySyncError.self) { try Command.configurationRecords([["x": .null]], existing: [:], by: parent, at: Self.now) }
        #expect(missing?.field == "configuration[0].logicalID")
    }
}
