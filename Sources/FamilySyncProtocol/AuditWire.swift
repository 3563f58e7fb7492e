import FamilySyncCore
import Foundation

/// Who made an audited change (§15.4): a device of the family (and its member), or the server.
public struct AuditActorBody: Codable, Sendable, Equatable {
    public var role: String
    public var deviceId: UUID?
    public var memberId: UUID?
    /// The client's address as the server saw it (behind a trusted proxy, the one it forwarded).
    public var address: String?

    public init(role: String, deviceId: UUID?, memberId: UUID?, address: String?) {
        self.role = role
        self.deviceId = deviceId
        self.memberId = memberId
        self.address = address
    }

    // Ids are lowercase on output (PROTOCOL §1), which UUID's own encoding is not.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(role, forKey: .role)
        try container.encodeIfPresent(deviceId?.lowercased, forKey: .deviceId)
        try container.encodeIfPresent(memberId?.lowercased, forKey: .memberId)
        try container.encodeIfPresent(address, forKey: .address)
    }
}

/// One entry of `GET /v1/audit`.
public struct AuditEventBody: Codable, Sendable, Equatable {
    /// Increasing within the family: newer events have larger ids.
    public var id: String
    public var at: Date
    public var action: String
    public var actor: AuditActorBody
    /// The member the change concerns, where one does.
    public var memberId: UUID?
    public var subjectType: String
    public var subject: String?

    public init(id: String, at: Date, action: String, actor: AuditActorBody, memberId: UUID?, subjectType: String, subject: String?) {
        self.id = id
        self.at = at
        self.action = action
        self.actor = actor
        self.memberId = memberId
        self.subjectType = subjectType
        self.subject = subject
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(at, forKey: .at)
        try container.encode(action, forKey: .action)
        try container.encode(actor, forKey: .actor)
        try container.encodeIfPresent(memberId?.lowercased, forKey: .memberId)
        try container.encode(subjectType, forKey: .subjectType)
        try container.encodeIfPresent(subject, forKey: .subject)
    }
}

/// `GET /v1/audit`: newest first; `cursor`, when present, asks for the next (older) page.
public struct AuditPage: Codable, Sendable, Equatable {
    public var events: [AuditEventBody]
    public var cursor: String?

    public init(events: [AuditEventBody], cursor: String?) {
        self.events = events
        self.cursor = cursor
    }
}

/// A day's count of one parent member's reads of the family's data through one route (§15.4).
public struct AuditReadsBody: Codable, Sendable, Equatable {
    public var date: String
    public var memberId: UUID
    public var route: String
    public var reads: Int

    public init(date: String, memberId: UUID, route: String, reads: Int) {
        self.date = date
        self.memberId = memberId
        self.route = route
        self.reads = reads
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(date, forKey: .date)
        try container.encode(memberId.lowercased, forKey: .memberId)
        try container.encode(route, forKey: .route)
        try container.encode(reads, forKey: .reads)
    }
}

/// `GET /v1/audit/reads`.
public struct AuditReadsList: Codable, Sendable, Equatable {
    public var days: [AuditReadsBody]

    public init(days: [AuditReadsBody]) {
        self.days = days
    }
}

/// `PUT /v1/families/me/retention` (§15.1): the days of the kinds the family sets
/// (`usageSessions`, `dailyTotals`, `summaries`, `alerts`, `health`, `commands`, `audit`); a kind
/// left out is kept the operator's maximum.
public struct SetRetentionRequest: Codable, Sendable, Equatable {
    public var days: [String: Int]

    public init(days: [String: Int]) {
        self.days = days
    }
}

/// `GET|PUT /v1/families/me/retention`: every kind's days as applied.
public struct RetentionBody: Codable, Sendable, Equatable {
    public var days: [String: Int]
    /// The operator's maximum, and the days of a kind the family did not set.
    public var maximumDays: Int
    /// The kinds the family set itself.
    public var familySet: [String]

    public init(days: [String: Int], maximumDays: Int, familySet: [String]) {
        self.days = days
        self.maximumDays = maximumDays
        self.familySet = familySet
    }
}
