import Foundation

/// A person of the family (PROTOCOL §8): every confirmed device belongs to one. Budgets, schedules
/// and alerts apply to the person, in the member's zone `member-<id>`; parents read one view
/// across the member's devices.
public struct Member: Sendable, Equatable {
    public var id: UUID
    public var familyID: UUID
    public var name: String
    public var role: DeviceRole
    /// The member's devices, revoked ones included (their history stays the member's).
    public var deviceIDs: [UUID]
    public var createdAt: Date

    public init(id: UUID, familyID: UUID, name: String, role: DeviceRole, deviceIDs: [UUID], createdAt: Date) {
        self.id = id
        self.familyID = familyID
        self.name = name
        self.role = role
        self.deviceIDs = deviceIDs
        self.createdAt = createdAt
    }

    public var zoneName: String { Self.zoneName(of: id) }

    public static func zoneName(of id: UUID) -> String { "member-\(id.lowercased)" }

    /// Moving a device (`POST /v1/devices/{id}/member`) keeps its role: a child's device goes to a
    /// child member, a parent's to a parent member.
    public static func checkMove(device role: DeviceRole, to member: Member) throws(FamilySyncError) {
        guard member.role == role else {
            throw FamilySyncError(.conflict, "A \(role.rawValue)'s device moves only to a \(role.rawValue) member; this member is a \(member.role.rawValue).")
        }
    }

    /// Whether `device` may move to `member`: a confirmed device that is not revoked, to a member
    /// of its role. Its present member, or nil when it is there already (nothing to do).
    public static func checkMove(_ device: Device, to member: Member) throws(FamilySyncError) -> UUID? {
        guard device.status != .revoked else { throw FamilySyncError(.conflict, "The device is revoked.") }
        guard let previous = device.memberID else {
            throw FamilySyncError(.conflict, "The device awaits a parent's confirmation; it joins a member when confirmed.")
        }
        try checkMove(device: device.role, to: member)
        return previous == member.id ? nil : previous
    }

    /// A family has at most `Limits.maximumMembers` live members; a new one past that is refused.
    public static func checkRoom(liveMembers: Int) throws(FamilySyncError) {
        guard liveMembers < Limits.maximumMembers else {
            throw FamilySyncError.limitExceeded("A family has at most \(Limits.maximumMembers) members; delete one first.")
        }
    }

    /// Deleting a member revokes its devices; a parent cannot delete its own member (it would
    /// revoke itself), as it cannot revoke the family's last parent device.
    public static func checkDelete(_ member: Member, by caller: AuthenticatedDevice) throws(FamilySyncError) {
        guard member.id != caller.memberID else {
            throw FamilySyncError(.conflict, "A device cannot delete its own member; delete the family, or do it from another parent's device.")
        }
    }
}
