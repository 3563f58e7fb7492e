import Foundation

/// A record zone (PROTOCOL §4, §8): a parent's own, `family`, a tracked device's (`child-<deviceId>`,
/// `device-<deviceId>`) or a member's `member-<memberId>`.
public struct Zone: Sendable, Equatable {
    public var name: String
    /// The tracked device whose zone this is; nil for other zones.
    public var childDeviceID: UUID?
    /// The member whose zone this is; nil for other zones.
    public var memberID: UUID?
    /// Changes when a deleted zone is made again, so old tokens of it are refused.
    public var incarnation: UUID
    /// The family's sequence number of its last change.
    public var changedSequence: Int64
    public var deleted: Bool

    public init(name: String, childDeviceID: UUID?, memberID: UUID? = nil, incarnation: UUID, changedSequence: Int64, deleted: Bool) {
        self.name = name
        self.childDeviceID = childDeviceID
        self.memberID = memberID
        self.incarnation = incarnation
        self.changedSequence = changedSequence
        self.deleted = deleted
    }
}

extension Zone {
    /// Zone names the server gives out: a tracked device's (`child-`, `device-`) and a member's
    /// (`member-`); a parent's own zones take other names.
    public static let reservedPrefixes = ["child-", "device-", "member-"]

    public static func checkNewName(_ name: String, field: String) throws(FamilySyncError) {
        if let prefix = reservedPrefixes.first(where: name.hasPrefix) {
            throw .badRequest("Zone names starting with \(prefix) are made by the server (pairing, tracking, members).", field: field)
        }
    }

    /// What `DELETE /v1/zones/{zone}` may delete (§4, §8): not `family`; not a member's zone, which
    /// goes with its member; not the zone of an active device (`ownerStatus`), which goes when the
    /// device is revoked with `purge`.
    public func checkDeletable(ownerStatus: DeviceStatus?) throws(FamilySyncError) {
        if name == "family" { throw FamilySyncError(.conflict, "The family zone cannot be deleted.") }
        if memberID != nil { throw FamilySyncError(.conflict, "A member's zone goes with its member: delete the member.") }
        if ownerStatus == .active { throw FamilySyncError(.conflict, "This is the zone of an active child device; revoke the device first.") }
    }
}

/// Where a family's change log stands: its last change, and the horizon before which tombstones
/// have been purged (a token from before it may have missed a deletion).
public struct ChangeLogPosition: Sendable, Equatable {
    public var sequence: Int64
    public var horizon: Int64

    public init(sequence: Int64, horizon: Int64) {
        self.sequence = sequence
        self.horizon = horizon
    }

    /// A database token's sequence must lie within what the family kept: not before the horizon,
    /// not after the family's sequence. A token at 0 has seen nothing (a device awaiting
    /// confirmation holds one), so it cannot have missed anything.
    public func checkDatabaseToken(_ tokenSequence: Int64) throws(FamilySyncError) {
        guard tokenSequence == 0 || tokenSequence >= horizon, tokenSequence <= sequence else { throw Self.expired }
    }

    /// A zone token's sequence must lie within what the family kept.
    public func checkZoneToken(_ tokenSequence: Int64) throws(FamilySyncError) {
        guard tokenSequence >= horizon, tokenSequence <= sequence else { throw Self.expired }
    }

    static let expired = FamilySyncError(.changeTokenExpired, "The change token is older than the tombstone horizon; fetch again without one.")
}
