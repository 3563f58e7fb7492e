import FamilySyncCore
import Foundation
import Testing

/// §7.1's lifecycle as a table: every event from every status.
@Suite struct CommandLifecycleTests {
    static let created = Date(timeIntervalSince1970: 1_800_000_000)
    static let later = created.addingTimeInterval(60)

    static func command(_ status: CommandStatus, error: String? = nil) -> Command {
        Command(
            commandID: UUID(), targetDeviceID: UUID(), commandType: "block", payload: [:], status: status, createdAt: created,
            createdBy: UUID(), expiresAt: created.addingTimeInterval(3600), error: error
        )
    }

    enum Outcome: Equatable { case becomes(CommandStatus), unchanged, conflict }

    static let table: [(CommandStatus, Command.Event, Outcome)] = [
        (.pending, .delivered, .becomes(.delivered)),
        (.delivered, .delivered, .unchanged),
        (.executed, .delivered, .unchanged),
        (.cancelled, .delivered, .unchanged),
        (.pending, .result(executed: true, error: nil), .becomes(.executed)),
        (.delivered, .result(executed: true, error: nil), .becomes(.executed)),
        (.delivered, .result(executed: false, error: "no permission"), .becomes(.failed)),
        (.executed, .result(executed: true, error: nil), .unchanged),
        (.executed, .result(executed: false, error: "x"), .conflict),
        (.cancelled, .result(executed: true, error: nil), .conflict),
        (.expired, .result(executed: true, error: nil), .conflict),
        (.pending, .cancel, .becomes(.cancelled)),
        (.delivered, .cancel, .becomes(.cancelled)),
        (.cancelled, .cancel, .unchanged),
        (.executed, .cancel, .conflict),
        (.failed, .cancel, .conflict),
        (.expired, .cancel, .conflict),
    ]

    @Test(arguments: table.indices)
    func transition(_ index: Int) throws {
        let (status, event, outcome) = Self.table[index]
        let command = Self.command(status)
        switch outcome {
        case .becomes(let next):
            let after = try #require(try command.applying(event, at: Self.later))
            #expect(after.status == next)
            switch next {
            case .delivered: #expect(after.deliveredAt == Self.later)
            case .executed, .failed:
                #expect(after.executedAt == Self.later)
                #expect(after.deliveredAt != nil, "a result implies delivery")
            case .cancelled: #expect(after.cancelledAt == Self.later)
            default: break
            }
        case .unchanged:
            #expect(try command.applying(event, at: Self.later) == nil)
        case .conflict:
            #expect(throws: FamilySyncError.self) { try command.applying(event, at: Self.later) }
        }
    }

    @Test func theSameFailureAgainIsIdempotentAndAnotherIsAConflict() throws {
        let failed = Self.command(.failed, error: "no permission")
        #expect(try failed.applying(.result(executed: false, error: "no permission"), at: Self.later) == nil)
        #expect(throws: FamilySyncError.self) { try failed.applying(.result(executed: false, error: "other"), at: Self.later) }
    }

    /// Past expiresAt a pending or delivered command is expired first: a result is then 409.
    @Test func pastItsExpiryACommandIsExpired() throws {
        let late = Self.created.addingTimeInterval(7200)
        let expired = try #require(try Self.command(.pending).applying(.delivered, at: late))
        #expect(expired.status == .expired)
        #expect(throws: FamilySyncError.self) { try Self.command(.delivered).applying(.result(executed: true, error: nil), at: late) }
        #expect(try Self.command(.executed).applying(.delivered, at: late) == nil)
    }

    @Test func fieldsRoundTrip() {
        var command = Self.command(.failed, error: "no permission")
        command.payload = ["logicalIDs": .array([.string("app-1")])]
        command.deliveredAt = Self.later
        command.executedAt = Self.later
        #expect(Command(fields: command.fields) == command)
    }

    @Test(arguments: ["block", "unblock", "update_config", "request_sync", "x-reboot"])
    func knownAndCustomTypes(_ type: String) throws {
        try Command.checkType(type, field: "commandType")
    }

    @Test(arguments: ["", "reboot", "x-", "Block", "x-" + String(repeating: "a", count: 63)])
    func otherTypesAreRefused(_ type: String) {
        #expect(throws: FamilySyncError.self) { try Command.checkType(type, field: "commandType") }
    }
}

/// §7.1's payload of `block` and `unblock`: `logicalIDs` or nothing, any other member refused by name.
@Suite struct CommandPayloadTests {
    static let longest = String(repeating: "a", count: 255)

    @Test(arguments: [
        [:], ["logicalIDs": .array([.string("app-game")])], ["logicalIDs": .array((1...500).map { .string("app-\($0)") })],
        ["logicalIDs": .array([.string(longest), .string("é")])],
    ] as [[String: JSONValue]])
    func appsByLogicalIDOrTheWholeDevice(_ payload: [String: JSONValue]) throws {
        for type in ["block", "unblock"] { try Command.checkPayload(payload, type: type, field: "payload") }
    }

    @Test(arguments: [
        (["apps": .array([.string("app-game")])], "payload.apps"),
        (["logicalIDs": .array([.string("a")]), "reason": .string("bedtime")], "payload.reason"),
        (["logicalIDs": .array([])], "payload.logicalIDs"),
        (["logicalIDs": .null], "payload.logicalIDs"),
        (["logicalIDs": .string("app-game")], "payload.logicalIDs"),
        (["logicalIDs": .array([.number(1)])], "payload.logicalIDs"),
        (["logicalIDs": .array([.string("")])], "payload.logicalIDs"),
        (["logicalIDs": .array([.string(longest + "a")])], "payload.logicalIDs"),
        (["logicalIDs": .array((0...500).map { .string("app-\($0)") })], "payload.logicalIDs"),
    ] as [([String: JSONValue], String)])
    func anythingElseIsRefusedByName(_ payload: [String: JSONValue], _ field: String) {
        for type in ["block", "unblock"] {
            let error = #expect(throws: FamilySyncError.self) { try Command.checkPayload(payload, type: type, field: "payload") }
            #expect(error?.code == .badRequest && error?.field == field && error?.reason.contains("logicalIDs") == true, "\(String(describing: error))")
        }
    }

    /// Other commands' payloads are their own.
    @Test func otherTypesTakeAnyPayload() throws {
        for type in ["update_config", "request_sync", "x-reboot"] {
            try Command.checkPayload(["apps": .array([.string("app-game")])], type: type, field: "payload")
        }
    }

    /// What the rule lets through is what BlockedApps reads: one app, not the whole device.
    @Test func theSDKsPayloadBlocksOneApp() {
        let executed = Date(timeIntervalSince1970: 1_800_000_000)
        func command(_ type: String, _ ids: [String]?, _ seconds: Double) -> Command {
            Command(
                commandID: UUID(), targetDeviceID: UUID(), commandType: type, payload: Command.appsPayload(ids), status: .executed, createdAt: executed,
                createdBy: UUID(), expiresAt: executed.addingTimeInterval(3600), executedAt: executed.addingTimeInterval(seconds)
            )
        }
        let commands = [command("block", ["game"], 1), command("block", ["chat"], 2), command("unblock", ["game"], 3)]
        #expect(BlockedApps.at(executed.addingTimeInterval(2), configuredBlocked: [], commands: commands) == BlockedApps(applications: ["chat", "game"], wholeDevice: false))
        #expect(BlockedApps.at(executed.addingTimeInterval(3), configuredBlocked: [], commands: commands) == BlockedApps(applications: ["chat"], wholeDevice: false))
        #expect(BlockedApps.at(executed.addingTimeInterval(3), configuredBlocked: [], commands: [command("block", nil, 1)]).wholeDevice)
    }
}

/// §3's pairing decisions as a table, next to the command lifecycle: every decision from every status.
@Suite struct PairingDecisionTests {
    static let created = Date(timeIntervalSince1970: 1_800_000_000)

    static func pairing(_ status: PairingStatus) -> Pairing {
        Pairing(
            id: UUID(), familyID: UUID(), role: .child, childName: "C", storedStatus: status, createdBy: UUID(), deviceID: UUID(),
            verificationEmoji: nil, createdAt: created, expiresAt: created.addingTimeInterval(600)
        )
    }

    @Test(arguments: PairingStatus.allCases, Pairing.Decision.allCases)
    func decision(_ status: PairingStatus, _ decision: Pairing.Decision) {
        let now = Self.created.addingTimeInterval(60)
        let required: PairingStatus = decision == .revoke ? .pending : .accepted
        do {
            let decided = try Self.pairing(status).deciding(decision, at: now)
            #expect(status == required)
            #expect(decided.storedStatus == decision.resultingStatus)
        } catch {
            #expect(status != required)
            #expect(error.code == (status == .expired ? .pairingExpired : .conflict))
        }
    }

    @Test func aPairingPastItsTimeIsExpiredForEveryDecisionAndForAToken() {
        let late = Self.created.addingTimeInterval(600)
        for decision in Pairing.Decision.allCases {
            let status: PairingStatus = decision == .revoke ? .pending : .accepted
            #expect(throws: FamilySyncError.self) { try Self.pairing(status).deciding(decision, at: late) }
        }
        #expect(throws: FamilySyncError.self) { try Self.pairing(.pending).checkAcceptable(at: late) }
        #expect(throws: Never.self) { try Self.pairing(.pending).checkAcceptable(at: Self.created) }
    }

    @Test func theLastAllowedWrongTokenBurnsThePairing() {
        #expect(Pairing.statusAfterWrongToken(failedAttemptsBefore: Pairing.maximumTokenAttempts - 2) == .pending)
        #expect(Pairing.statusAfterWrongToken(failedAttemptsBefore: Pairing.maximumTokenAttempts - 1) == .burned)
    }
}
