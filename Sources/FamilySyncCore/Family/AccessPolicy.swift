import Foundation

/// Who may do what (PROTOCOL §2–§4), decided from the authenticated device alone, before any
/// lookup: a denial (403) therefore says nothing about whether an id exists. Ids of another family
/// are never found by the stores, whose every query is bounded by the caller's family (404).
/// The matrix this encodes is written down in docs/access.md and tested cell by cell.
public enum AccessPolicy {
    public enum Action: Sendable, Equatable {
        case listDevices
        case readOwnDevice
        /// `PATCH /v1/devices/{id}` changing these members.
        case updateDevice(target: UUID, members: Set<DeviceMember>)
        case revokeDevice
        case rotateOwnCredential
        case deleteFamily
        case createPairing
        case listPairings
        /// `GET /v1/pairings/{id}`; non-parents may read only the pairing they accepted.
        case readPairing
        case decidePairing
        case revokePairing
        /// `GET /v1/changes`: an awaiting device gets an empty database.
        case readDatabaseChanges
        /// Zones and their records, as far as `ZoneAccess` shows them.
        case readZones
        case writeRecords
        case manageZones
        /// `POST /v1/devices/{id}/commands`, `POST /v1/commands/{id}/cancel` (§7.1).
        case sendCommand
        /// `GET /v1/devices/{id}/commands`: a parent, or that child itself.
        case readCommands(child: UUID)
        /// `GET /v1/devices/{id}/summaries|usage|report` (§7.4): a parent, or that child itself.
        case readUsage(child: UUID)
        /// `POST /v1/commands/{id}/result`: only a child (the target, which the store checks).
        case reportCommandResult
        /// `POST /v1/usage`: a tracked device (a child's, or a parent's that asked), for itself.
        case uploadUsage
        /// `GET /v1/members`: a parent sees every member; a child's device its own member.
        case listMembers
        /// `POST /v1/members`, `PATCH|DELETE /v1/members/{id}`, `POST /v1/devices/{id}/member`.
        case manageMembers
        /// `GET /v1/members/{id}/summaries|report` (§8): a parent, or a device of that member.
        case readMemberUsage(member: UUID)
        /// `POST /v1/account/apple`, `POST /v1/families/me/recovery-code` (§13).
        case manageRecovery
        /// `POST /v1/alerts/{id}/dismiss` (§9.4).
        case dismissAlert
        /// `POST /v1/alerts`: a tracked device reports a threshold it watches (§9.4).
        case reportAlert
        /// `POST /v1/devices/me/health` (§10): a tracked device, for itself.
        case reportHealth
        /// `GET /v1/devices/{id}/health` (§10): a parent, or that device itself.
        case readHealth(device: UUID)
        /// `PUT|DELETE /v1/devices/me/push` (§12): any active device, for itself.
        case registerPush
        /// `PUT /v1/members/{id}/pin` (§11).
        case setParentPIN
        /// `POST /v1/members/{id}/pin/verify` (§11): only that member's own devices, parents' not
        /// excepted (they set the PIN; nobody else needs a way to try one).
        case verifyParentPIN(member: UUID)
        /// `GET|PUT /v1/families/me/retention` (§15.1).
        case manageRetention
        /// `GET /v1/families/me/export`, `GET /v1/members/{id}/export` (§15.2).
        case exportData
        /// `GET /v1/audit`, `GET /v1/audit/reads` (§15.4): a child reads nothing of it.
        case readAudit
    }

    public enum DeviceMember: String, Sendable, CaseIterable {
        case name, childName, timeZone, tracked
    }

    public static func check(_ caller: AuthenticatedDevice, _ action: Action) throws(FamilySyncError) {
        guard isAllowed(caller, action) else {
            throw FamilySyncError(.accessDenied, denialReason(caller, action))
        }
    }

    public static func isAllowed(_ caller: AuthenticatedDevice, _ action: Action) -> Bool {
        switch caller.status {
        case .revoked:
            return false
        case .awaitingConfirmation:
            // Until confirmed: its own device and its own pairing, nothing else.
            return action == .readOwnDevice || action == .readPairing || action == .readDatabaseChanges
        case .active:
            break
        }
        if action == .reportCommandResult { return caller.role == .child }
        if action == .uploadUsage || action == .reportAlert || action == .reportHealth { return caller.tracked }
        if case .verifyParentPIN(let member) = action { return caller.memberID == member }
        // Tracking is a device's own choice, and only a parent's device has one (§8).
        if case .updateDevice(let target, let members) = action, members.contains(.tracked) {
            return caller.role == .parent && target == caller.deviceID
        }
        if caller.role == .parent { return true }
        switch action {
        case .listDevices, .readOwnDevice, .rotateOwnCredential, .readPairing, .readDatabaseChanges, .readZones, .writeRecords, .registerPush:
            return true
        case .updateDevice(let target, let members):
            return target == caller.deviceID && members.isSubset(of: [.name, .timeZone])
        case .readCommands(let child), .readUsage(let child), .readHealth(let child):
            return child == caller.deviceID
        case .readMemberUsage(let member):
            return member == caller.memberID
        case .reportCommandResult, .uploadUsage, .listMembers, .reportAlert, .reportHealth:
            return true
        case .verifyParentPIN(let member):
            return caller.memberID == member
        case .revokeDevice, .deleteFamily, .createPairing, .listPairings, .decidePairing, .revokePairing, .manageZones, .sendCommand,
            .manageMembers, .manageRecovery, .dismissAlert, .setParentPIN, .manageRetention, .exportData, .readAudit:
            return false
        }
    }

    private static func denialReason(_ caller: AuthenticatedDevice, _ action: Action) -> String {
        if caller.status == .awaitingConfirmation {
            return "This device awaits a parent's confirmation; until then it may read only itself and its pairing."
        }
        if case .updateDevice(let target, let members) = action, members.contains(.tracked) {
            return target == caller.deviceID
                ? "A child's device is always tracked." : "Only the device itself turns its tracking on or off."
        }
        if case .updateDevice(let target, _) = action, target == caller.deviceID {
            return "A child device may change only its own name and time zone."
        }
        if action == .reportCommandResult {
            return "Only the child device a command was sent to reports its result."
        }
        if action == .uploadUsage || action == .reportAlert || action == .reportHealth {
            return "Only a tracked device reports its own usage, alerts and health: a child's, or a parent's after PATCH /v1/devices/me {\"tracked\": true}."
        }
        if case .verifyParentPIN = action {
            return "Only the member's own devices check its PIN."
        }
        return "Only a parent device may do this."
    }
}
