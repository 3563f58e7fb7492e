import FamilySyncCore
import Foundation

/// `Device` on the wire (PROTOCOL §2).
public struct DeviceBody: Codable, Sendable, Equatable {
    public var id: UUID
    public var familyId: UUID
    public var role: DeviceRole
    public var name: String
    public var childName: String?
    public var platform: DevicePlatform
    public var timeZone: String
    public var zoneName: String?
    public var status: DeviceStatus
    public var registeredAt: Date
    public var lastSeenAt: Date?
    public var lastSyncAt: Date?
    /// Its member (§8); null while it awaits confirmation.
    public var memberId: UUID?
    public var tracked: Bool
    /// It records its own usage (`DeviceRole.recordsUsage`).
    public var recordsUsage: Bool { role.recordsUsage(tracked: tracked) }

    public init(_ device: Device) {
        id = device.id
        familyId = device.familyID
        role = device.role
        name = device.name
        childName = device.childName
        platform = device.platform
        timeZone = device.timeZone
        zoneName = device.zoneName
        status = device.status
        registeredAt = device.registeredAt
        lastSeenAt = device.lastSeenAt
        lastSyncAt = device.lastSyncAt
        memberId = device.memberID
        tracked = device.tracked
    }

    // Ids are lowercase on output (PROTOCOL §1), which UUID's own encoding is not.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.lowercased, forKey: .id)
        try container.encode(familyId.lowercased, forKey: .familyId)
        try container.encode(role, forKey: .role)
        try container.encode(name, forKey: .name)
        try container.encode(childName, forKey: .childName)
        try container.encode(platform, forKey: .platform)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(zoneName, forKey: .zoneName)
        try container.encode(status, forKey: .status)
        try container.encode(registeredAt, forKey: .registeredAt)
        try container.encode(lastSeenAt, forKey: .lastSeenAt)
        try container.encode(lastSyncAt, forKey: .lastSyncAt)
        try container.encode(memberId?.lowercased, forKey: .memberId)
        try container.encode(tracked, forKey: .tracked)
    }
}

/// What a device says of itself when it registers.
public struct DeviceRegistration: Codable, Sendable, Equatable {
    public var name: String
    public var platform: DevicePlatform
    public var timeZone: String

    public init(name: String, platform: DevicePlatform, timeZone: String) {
        self.name = name
        self.platform = platform
        self.timeZone = timeZone
    }
}

/// `POST /v1/families`.
public struct CreateFamilyRequest: Codable, Sendable, Equatable {
    public var device: DeviceRegistration
    public init(device: DeviceRegistration) { self.device = device }
}

public struct FamilyReference: Codable, Sendable, Equatable {
    public var id: UUID
    public init(id: UUID) { self.id = id }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.lowercased, forKey: .id)
    }
}

/// `POST /v1/families` and `POST /v1/families/recover`.
public struct CreateFamilyResponse: Codable, Sendable, Equatable {
    public var family: FamilyReference
    public var device: DeviceBody
    public var credential: String
    /// Shown once (§13): the way back into the family when every parent device is lost.
    public var recoveryCode: String
    public init(family: FamilyReference, device: DeviceBody, credential: String, recoveryCode: String) {
        self.family = family
        self.device = device
        self.credential = credential
        self.recoveryCode = recoveryCode
    }
}

public struct DeviceList: Codable, Sendable, Equatable {
    public var devices: [DeviceBody]
    public init(devices: [DeviceBody]) { self.devices = devices }
}

/// `PATCH /v1/devices/{id}`: any of the members; at least one.
public struct UpdateDeviceRequest: Codable, Sendable, Equatable {
    public var name: String?
    public var childName: String?
    public var timeZone: String?
    /// A parent's own device only (`PATCH /v1/devices/me`, §8).
    public var tracked: Bool?
    public init(name: String? = nil, childName: String? = nil, timeZone: String? = nil, tracked: Bool? = nil) {
        self.name = name
        self.childName = childName
        self.timeZone = timeZone
        self.tracked = tracked
    }
}

public struct CredentialResponse: Codable, Sendable, Equatable {
    public var credential: String
    public init(credential: String) { self.credential = credential }
}
