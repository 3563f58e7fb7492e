import Foundation

public enum DeviceRole: String, Sendable, Codable, CaseIterable {
    case parent, child

    /// Whether a device of this role records its own usage (and so has a zone, a tracking health
    /// and usage to read): a child's always, a parent's when it asked to be tracked (§8).
    public func recordsUsage(tracked: Bool) -> Bool { self == .child || tracked }

    /// Commands (§7.1) go to children's devices only.
    public var takesCommands: Bool { self == .child }
}

public enum DeviceStatus: String, Sendable, Codable, CaseIterable {
    case awaitingConfirmation = "awaiting_confirmation"
    case active, revoked
}

public enum DevicePlatform: String, Sendable, Codable, CaseIterable {
    case ios, ipados, macos, watchos, android, web, other
}

/// A device of a family (PROTOCOL §2).
public struct Device: Sendable, Equatable {
    public var id: UUID
    public var familyID: UUID
    public var role: DeviceRole
    public var name: String
    public var childName: String?
    public var platform: DevicePlatform
    public var timeZone: String
    public var status: DeviceStatus
    public var registeredAt: Date
    public var lastSeenAt: Date?
    public var lastSyncAt: Date?
    /// The person it belongs to (§8); nil until a parent confirms it.
    public var memberID: UUID?
    /// Whether its usage is recorded (§8): always for a child's device, on request for a parent's.
    public var tracked: Bool

    public init(
        id: UUID, familyID: UUID, role: DeviceRole, name: String, childName: String?, platform: DevicePlatform,
        timeZone: String, status: DeviceStatus, registeredAt: Date, lastSeenAt: Date?, lastSyncAt: Date?,
        memberID: UUID? = nil, tracked: Bool? = nil
    ) {
        self.id = id
        self.familyID = familyID
        self.role = role
        self.name = name
        self.childName = childName
        self.platform = platform
        self.timeZone = timeZone
        self.status = status
        self.registeredAt = registeredAt
        self.lastSeenAt = lastSeenAt
        self.lastSyncAt = lastSyncAt
        self.memberID = memberID
        self.tracked = tracked ?? (role == .child)
    }

    /// A tracked device's own zone: `child-<deviceId>` for a child's, `device-<deviceId>` for a
    /// tracked parent's; an untracked parent device has none.
    public var zoneName: String? { Self.zoneName(of: id, role: role, tracked: tracked) }

    public static func zoneName(forChild id: UUID) -> String { "child-\(id.lowercased)" }

    public static func zoneName(of id: UUID, role: DeviceRole, tracked: Bool) -> String? {
        switch role {
        case .child: zoneName(forChild: id)
        case .parent: tracked ? "device-\(id.lowercased)" : nil
        }
    }
}

extension Device {
    /// The device with its own settings changed (§2); a nil leaves one as it is. Only a child's
    /// device has a child name; only a parent's switches tracking (a child's always records). With
    /// the zone to create when a parent's device is to be tracked.
    public func updated(name: String?, childName: String?, timeZone: String?, tracked: Bool?) throws(FamilySyncError) -> (device: Device, newZone: String?) {
        if childName != nil, role != .child { throw .badRequest("Only a child device has a child name.", field: "childName") }
        var device = self
        device.name = name ?? self.name
        device.childName = childName ?? self.childName
        device.timeZone = timeZone ?? self.timeZone
        guard let tracked, role == .parent else { return (device, nil) }
        device.tracked = tracked
        return (device, tracked ? Device.zoneName(of: id, role: .parent, tracked: true) : nil)
    }

    /// Its revocation asks whether another parent device stays: an active parent's does.
    public var needsAnotherParent: Bool { role == .parent && status == .active }

    /// The family keeps an active parent device: the last one is not revoked (the family is
    /// deleted instead).
    public func checkRevocable(otherActiveParents: Int) throws(FamilySyncError) {
        guard !needsAnotherParent || otherActiveParents > 0 else {
            throw FamilySyncError(.conflict, "This is the family's last parent device; delete the family instead.")
        }
    }
}

/// The device a request is authenticated as: what every handler's access decision starts from.
public struct AuthenticatedDevice: Sendable, Equatable {
    public var familyID: UUID
    public var deviceID: UUID
    public var role: DeviceRole
    public var status: DeviceStatus
    /// Its member (§8); nil while it awaits confirmation.
    public var memberID: UUID?
    /// A child's device, or a parent's that asked to be tracked: it uploads its own usage.
    public var tracked: Bool

    public init(familyID: UUID, deviceID: UUID, role: DeviceRole, status: DeviceStatus, memberID: UUID? = nil, tracked: Bool? = nil) {
        self.familyID = familyID
        self.deviceID = deviceID
        self.role = role
        self.status = status
        self.memberID = memberID
        self.tracked = tracked ?? (role == .child)
    }

    /// Its own zone, if it is tracked.
    public var zoneName: String? { Device.zoneName(of: deviceID, role: role, tracked: tracked) }
}

/// What a caller wants of a child device's zone, which decides the child devices it may name.
public enum ChildZoneUse: Sendable {
    /// Send it commands (§7.1): only an active child.
    case sendCommands
    /// Read what it holds (commands, usage, summaries, reports): a confirmed child, revoked ones
    /// too, so that its history stays readable.
    case readHistory

    /// `NOT_FOUND` for a device that is no child of the family (`role` nil: no such device);
    /// `CONFLICT` for a child that cannot be used so: one awaiting confirmation has no zone yet,
    /// and a revoked one takes no commands. A tracked parent device's history reads as a child's
    /// (§8); commands go to children only.
    public func check(role: DeviceRole?, status: DeviceStatus?, tracked: Bool = false) throws(FamilySyncError) {
        let isTracked = role == .child || (role == .parent && tracked && self == .readHistory)
        guard isTracked, let status else { throw .notFound("No such child device.") }
        switch (self, status) {
        case (.sendCommands, .awaitingConfirmation), (.sendCommands, .revoked):
            throw FamilySyncError(.conflict, "The child device is \(status.rawValue.replacingOccurrences(of: "_", with: " ")); commands go to active ones.")
        case (.readHistory, .awaitingConfirmation):
            throw FamilySyncError(.conflict, "The child device awaits a parent's confirmation; it holds nothing yet.")
        default:
            return
        }
    }
}
