import Foundation

/// Which zones a device sees (PROTOCOL §4): a parent the family's private database; an active child
/// a shared database of its own zone and the `family` zone, read-only; an awaiting device nothing.
public struct ZoneAccess: Sendable {
    public let caller: AuthenticatedDevice

    public init(_ caller: AuthenticatedDevice) {
        self.caller = caller
    }

    public var isParent: Bool { caller.role == .parent && caller.status == .active }

    public func canRead(zone: String, childDeviceID: UUID?) -> Bool {
        guard caller.status == .active else { return false }
        if caller.role == .parent { return true }
        return zone == "family" || childDeviceID == caller.deviceID
    }

    /// Children write only into their own zone, and only what the schema lets them.
    public func canWrite(zone: String, childDeviceID: UUID?) -> Bool {
        guard caller.status == .active else { return false }
        return caller.role == .parent || childDeviceID == caller.deviceID
    }

    public static func kind(of zone: String, childDeviceID: UUID?) -> RecordSchema.ZoneKind {
        if zone == "family" { return .family }
        return childDeviceID == nil ? .custom : .child
    }
}
