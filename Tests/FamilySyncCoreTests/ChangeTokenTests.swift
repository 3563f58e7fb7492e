import Crypto
import FamilySyncCore
import Foundation
import Testing

@Suite struct ChangeTokenTests {
    static let key = SymmetricKey(size: .bits256)

    @Test(arguments: [ChangeToken.Scope.database, .zone(name: "child-\(UUID().lowercased)", incarnation: UUID()), .zone(name: "family", incarnation: UUID())])
    func roundTrips(_ scope: ChangeToken.Scope) throws {
        let token = ChangeToken(familyID: UUID(), deviceID: UUID(), scope: scope, sequence: 1_234_567_890_123)
        #expect(try ChangeToken.decode(token.encode(key: Self.key), key: Self.key) == token)
    }

    /// One keyed HMAC set up once (as the server's keyring keeps it) signs and checks token after
    /// token, each the same as with the key itself.
    @Test func aKeyedHMACServesManyTokens() throws {
        let keyed = HMAC<SHA256>(key: Self.key)
        for sequence in [1, 2, 3] as [Int64] {
            let token = ChangeToken(familyID: UUID(), deviceID: UUID(), scope: .zone(name: "family", incarnation: UUID()), sequence: sequence)
            let text = token.encode(keyed: keyed)
            #expect(text == token.encode(key: Self.key))
            #expect(try ChangeToken.decode(text, keyed: keyed) == token)
        }
        let other = ChangeToken(familyID: UUID(), deviceID: UUID(), scope: .database, sequence: 1).encode(key: SymmetricKey(size: .bits256))
        #expect(throws: FamilySyncError.self) { try ChangeToken.decode(other, keyed: keyed) }
    }

    /// Every character, the last one's unused low bits included: a token has one spelling.
    @Test(arguments: [ChangeToken.Scope.database, .zone(name: "family", incarnation: UUID())])
    func everyAlteredCharacterIsRefused(_ scope: ChangeToken.Scope) throws {
        let text = ChangeToken(familyID: UUID(), deviceID: UUID(), scope: scope, sequence: 42).encode(key: Self.key)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for index in text.indices {
            for replacement in alphabet where replacement != text[index] {
                var altered = text
                altered.replaceSubrange(index...index, with: String(replacement))
                #expect(throws: FamilySyncError.self) { try ChangeToken.decode(altered, key: Self.key) }
            }
        }
    }

    @Test func anotherServersKeyAndGarbageAreRefused() {
        let text = ChangeToken(familyID: UUID(), deviceID: UUID(), scope: .database, sequence: 1).encode(key: Self.key)
        for candidate in [ChangeToken(familyID: UUID(), deviceID: UUID(), scope: .database, sequence: 1).encode(key: SymmetricKey(size: .bits256)), "", "abc", "%%%", String(repeating: "A", count: 600), text + "A"] {
            #expect(performing: { try ChangeToken.decode(candidate, key: Self.key) }, throws: { ($0 as? FamilySyncError)?.code == .badChangeToken })
        }
    }
}

@Suite struct ConflictResolverTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let (low, high) = {
        let a = UUID(), b = UUID()
        return a.lowercased < b.lowercased ? (a, b) : (b, a)
    }()

    @Test func newerWinsThenParentThenDeviceId() {
        let base = WriteStamp(clientModifiedAt: Self.now, role: .child, deviceID: Self.low)
        var later = base
        later.clientModifiedAt += 1
        #expect(ConflictResolver.incomingWins(incoming: later, stored: base))
        #expect(!ConflictResolver.incomingWins(incoming: base, stored: later))
        var parent = base
        parent.role = .parent
        #expect(ConflictResolver.incomingWins(incoming: parent, stored: base))
        #expect(!ConflictResolver.incomingWins(incoming: base, stored: parent))
        var otherDevice = base
        otherDevice.deviceID = Self.high
        #expect(ConflictResolver.incomingWins(incoming: otherDevice, stored: base))
        #expect(!ConflictResolver.incomingWins(incoming: base, stored: base))
    }

    @Test func aClockAheadIsClampedToSixtySeconds() {
        let ahead = WriteStamp(clientModifiedAt: Self.now.addingTimeInterval(3600), role: .child, deviceID: Self.low)
        #expect(ConflictResolver.clamp(ahead, serverNow: Self.now).clientModifiedAt == Self.now.addingTimeInterval(60))
        // So a parent writing at the server's time plus a minute ties it and wins.
        let parent = WriteStamp(clientModifiedAt: Self.now.addingTimeInterval(60), role: .parent, deviceID: Self.low)
        #expect(ConflictResolver.incomingWins(incoming: parent, stored: ConflictResolver.clamp(ahead, serverNow: Self.now)))
    }

    /// For any two concurrent writes, the survivor is the same whichever arrives first.
    @Test func theOutcomeDoesNotDependOnArrivalOrder() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let a = WriteStamp(clientModifiedAt: Self.now.addingTimeInterval(Double(Int.random(in: 0...3, using: &generator))), role: Bool.random() ? .parent : .child, deviceID: Bool.random() ? Self.low : Self.high)
            let b = WriteStamp(clientModifiedAt: Self.now.addingTimeInterval(Double(Int.random(in: 0...3, using: &generator))), role: Bool.random() ? .parent : .child, deviceID: Bool.random() ? Self.low : Self.high)
            let aThenB = ConflictResolver.incomingWins(incoming: b, stored: a) ? b : a
            let bThenA = ConflictResolver.incomingWins(incoming: a, stored: b) ? a : b
            #expect(aThenB == bThenA || a == b)
        }
    }
}

@Suite struct RecordSchemaTests {
    static let valid: [String: JSONValue] = [
        "logicalID": .string("app-7f3a"), "displayName": .string("Khan Academy"), "category": .string("learning"),
        "pointsPerMinute": .number(5), "isEnabled": .bool(true), "blockingEnabled": .bool(false), "dateAdded": .string("2026-11-21T09:15:00.000Z"),
    ]

    @Test func acceptsAValidAppConfiguration() throws {
        try RecordSchema.validate(type: "AppConfiguration", fields: Self.valid, field: "f")
    }

    @Test(arguments: [
        ("pointsPerMinute", JSONValue.number(1001)), ("pointsPerMinute", .number(-1)), ("pointsPerMinute", .number(2.5)), ("pointsPerMinute", .string("5")),
        ("category", .string("games")), ("isEnabled", .string("yes")), ("displayName", .string("")), ("dateAdded", .string("yesterday")), ("color", .string("red")),
    ])
    func refusesWrongFields(_ name: String, _ value: JSONValue) {
        var fields = Self.valid
        fields[name] = value
        #expect(performing: { try RecordSchema.validate(type: "AppConfiguration", fields: fields, field: "f") }, throws: { ($0 as? FamilySyncError)?.field == "f.\(name)" })
    }

    @Test func refusesAMissingRequiredField() {
        var fields = Self.valid
        fields["isEnabled"] = nil
        #expect(performing: { try RecordSchema.validate(type: "AppConfiguration", fields: fields, field: "f") }, throws: { ($0 as? FamilySyncError)?.field == "f.isEnabled" })
    }

    @Test func writersComeFromOneTable() throws {
        try RecordSchema.checkWrite(type: "AppConfiguration", zone: .child, role: .parent, field: "t")
        try RecordSchema.checkWrite(type: "DeviceSettings", zone: .family, role: .parent, field: "t")
        try RecordSchema.checkWrite(type: "x-notes", zone: .custom, role: .parent, field: "t")
        // A child's own app list (§11): create, update, replace; not delete nor force past §5.4.
        for operation in [RecordOperationType.create, .update, .replace] {
            try RecordSchema.checkWrite(type: "AppConfiguration", zone: .child, role: .child, operation: operation, field: "t")
        }
        for operation in [RecordOperationType.delete, .forceDelete, .forceUpdate, .forceReplace] {
            #expect(performing: { try RecordSchema.checkWrite(type: "AppConfiguration", zone: .child, role: .child, operation: operation, field: "t") }, throws: { ($0 as? FamilySyncError)?.code == .accessDenied })
        }
        // The parent PIN's record is the server's to write (§11).
        #expect(performing: { try RecordSchema.checkWrite(type: "DeviceSettings", zone: .member, role: .parent, operation: .forceDelete, recordName: "parent-pin", field: "t") }, throws: { ($0 as? FamilySyncError)?.code == .accessDenied })
        try RecordSchema.checkWrite(type: "DeviceSettings", zone: .member, role: .parent, operation: .create, recordName: "bedtime-note", field: "t")
        for (type, zone, role) in [("DeviceSettings", RecordSchema.ZoneKind.child, DeviceRole.child), ("UsageRecord", .child, .child), ("DailySummary", .child, .parent), ("x-notes", .child, .child), ("ConfigurationCommand", .child, .parent)] {
            #expect(performing: { try RecordSchema.checkWrite(type: type, zone: zone, role: role, field: "t") }, throws: { ($0 as? FamilySyncError)?.code == .accessDenied })
        }
        #expect(performing: { try RecordSchema.checkWrite(type: "AppConfiguration", zone: .family, role: .parent, field: "t") }, throws: { ($0 as? FamilySyncError)?.code == .badRequest })
        #expect(performing: { try RecordSchema.checkWrite(type: "Mystery", zone: .child, role: .parent, field: "t") }, throws: { ($0 as? FamilySyncError)?.code == .badRequest })
    }
}
