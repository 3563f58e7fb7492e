import Foundation

/// Which zones a device sees (PROTOCOL §4, §8): a parent the family's private database; an active
/// child a shared database of its own zone, its member's zone and the `family` zone; a tracked
/// parent device its own zone among the rest; an awaiting device nothing. A member's zone is
/// nobody else's business: a sibling's devices do not see it.
public struct ZoneAccess: Sendable {
    public let caller: AuthenticatedDevice

    public init(_ caller: AuthenticatedDevice) {
        self.caller = caller
    }

    public var isParent: Bool { caller.role == .parent && caller.status == .active }

    public func canRead(_ zone: Zone) -> Bool {
        canRead(zone: zone.name, childDeviceID: zone.childDeviceID, memberID: zone.memberID)
    }

    public func canRead(zone: String, childDeviceID: UUID?, memberID: UUID?) -> Bool {
        guard caller.status == .active else { return false }
        if caller.role == .parent { return true }
        if let memberID { return memberID == caller.memberID }
        return zone == "family" || childDeviceID == caller.deviceID
    }

    /// Children write only into their own device's zone, and only what the schema lets them; a
    /// member's zone is the parents' to write.
    public func canWrite(_ zone: Zone) -> Bool {
        guard caller.status == .active else { return false }
        return caller.role == .parent || (zone.memberID == nil && zone.childDeviceID == caller.deviceID)
    }

    public static func kind(of zone: Zone) -> RecordSchema.ZoneKind {
        if zone.name == "family" { return .family }
        if zone.memberID != nil { return .member }
        return zone.childDeviceID == nil ? .custom : .child
    }
}
