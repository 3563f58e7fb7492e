import FamilySyncCore
import Foundation

/// `Member` on the wire (PROTOCOL §8).
public struct MemberBody: Codable, Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var role: DeviceRole
    public var deviceIds: [UUID]
    public var zoneName: String
    public var createdAt: Date

    public init(_ member: Member) {
        id = member.id
        name = member.name
        role = member.role
        deviceIds = member.deviceIDs
        zoneName = member.zoneName
        createdAt = member.createdAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.lowercased, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(role, forKey: .role)
        try container.encode(deviceIds.map(\.lowercased), forKey: .deviceIds)
        try container.encode(zoneName, forKey: .zoneName)
        try container.encode(createdAt, forKey: .createdAt)
    }
}

public struct MemberList: Codable, Sendable, Equatable {
    public var members: [MemberBody]
    public init(members: [MemberBody]) { self.members = members }
}

/// `POST /v1/members`.
public struct CreateMemberRequest: Codable, Sendable, Equatable {
    public var name: String
    public var role: DeviceRole
    public init(name: String, role: DeviceRole) {
        self.name = name
        self.role = role
    }
}

/// `PATCH /v1/members/{id}`.
public struct UpdateMemberRequest: Codable, Sendable, Equatable {
    public var name: String
    public init(name: String) { self.name = name }
}

/// `POST /v1/devices/{id}/member`.
public struct MoveDeviceRequest: Codable, Sendable, Equatable {
    public var memberId: UUID
    public init(memberId: UUID) { self.memberId = memberId }
}

/// One day of `GET /v1/members/{id}/summaries`.
public struct MemberDayBody: Codable, Sendable, Equatable {
    public struct Platform: Codable, Sendable, Equatable {
        public var platform: DevicePlatform
        public var seconds: Int
    }

    public struct Device: Codable, Sendable, Equatable {
        public var deviceId: String
        public var platform: DevicePlatform
        public var seconds: Int
    }

    public struct Category: Codable, Sendable, Equatable {
        public var category: String
        public var seconds: Int
        public var points: Int
    }

    public struct App: Codable, Sendable, Equatable {
        public var logicalID: String
        public var displayName: String
        public var category: String
        public var seconds: Int
        public var points: Int
        public var pickups: Int
    }

    public var date: String
    public var totalSeconds: Int
    public var totalLearningSeconds: Int
    public var totalRewardSeconds: Int
    public var totalPointsEarned: Int
    /// Pickups the member's devices reported (§9.1); 0 when none do.
    public var totalPickups: Int
    public var byPlatform: [Platform]
    public var byDevice: [Device]
    public var byCategory: [Category]
    public var byApp: [App]

    public init(_ day: MemberDay) {
        date = day.date
        totalSeconds = day.totalSeconds
        totalLearningSeconds = day.totalLearningSeconds
        totalRewardSeconds = day.totalRewardSeconds
        totalPointsEarned = day.totalPointsEarned
        totalPickups = day.totalPickups
        byPlatform = day.byPlatform.map { Platform(platform: $0.platform, seconds: $0.seconds) }
        byDevice = day.byDevice.map { Device(deviceId: $0.deviceID.lowercased, platform: $0.platform, seconds: $0.seconds) }
        byCategory = day.byCategory.map { Category(category: $0.category.rawValue, seconds: $0.seconds, points: $0.points) }
        byApp = day.byApp.map {
            App(logicalID: $0.logicalID, displayName: $0.displayName, category: $0.category.rawValue, seconds: $0.seconds, points: $0.points, pickups: $0.pickups)
        }
    }
}

public struct MemberSummaryList: Codable, Sendable, Equatable {
    public var summaries: [MemberDayBody]
    public init(summaries: [MemberDayBody]) { self.summaries = summaries }
}
