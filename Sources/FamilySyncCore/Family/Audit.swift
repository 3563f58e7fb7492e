import Foundation

/// Who made a change (PROTOCOL §15.4): the request's authenticated device, its member and the
/// client's address, or the server itself. The server sets it once a request is authenticated,
/// for the whole of its handling, so that every audited change the request makes names it
/// without each store being handed it.
public struct AuditActor: Sendable, Equatable {
    public var role: WriterRole
    public var deviceID: UUID?
    public var memberID: UUID?
    public var address: String?

    public init(role: WriterRole, deviceID: UUID? = nil, memberID: UUID? = nil, address: String? = nil) {
        self.role = role
        self.deviceID = deviceID
        self.memberID = memberID
        self.address = address
    }

    public init(_ device: AuthenticatedDevice, address: String?) {
        self.init(role: WriterRole(device.role), deviceID: device.deviceID, memberID: device.memberID, address: address)
    }

    /// A periodic job, or anything done outside a request.
    public static let server = AuditActor(role: .server)
}

/// What an audit event records (§15.4).
public enum AuditAction: String, Sendable, CaseIterable, Codable {
    /// A rule saved or deleted: a record of an audited type (`RecordType.audited`).
    case recordSaved = "record.saved"
    case recordDeleted = "record.deleted"
    case pairingCreated = "pairing.created"
    case pairingConfirmed = "pairing.confirmed"
    case pairingRejected = "pairing.rejected"
    case pairingCancelled = "pairing.cancelled"
    case deviceRevoked = "device.revoked"
    case devicePurged = "device.purged"
    case deviceMoved = "device.moved"
    case memberDeleted = "member.deleted"
    case retentionSet = "retention.set"
    case familyExported = "family.exported"
    case memberExported = "member.exported"
}

/// One change to a child's rules or the family's data, before it is stored with its actor and
/// time.
public struct AuditEntry: Sendable, Equatable {
    public var action: AuditAction
    /// The member it concerns (whose rules, device or data), where one does.
    public var memberID: UUID?
    /// What kind of thing it is about: a record type, `device`, `pairing`, `member`, `family`.
    public var subjectType: String
    /// Which one: a record's name, a device's, pairing's or member's id.
    public var subject: String?

    public init(_ action: AuditAction, memberID: UUID? = nil, subjectType: String, subject: String? = nil) {
        self.action = action
        self.memberID = memberID
        self.subjectType = subjectType
        self.subject = subject
    }
}

/// Which writes of records are audited: those of a type that is a rule
/// (`RecordType.audited`: configuration, budgets, schedules, shields, categories, settings and
/// the PIN, commands), made by a parent or by the server. A child's own writes (the apps it
/// picked, a command's result) are not a parent's change to its rules; nor is what the server
/// writes on a child's request, stamped as the server's (its fetch marking its commands
/// delivered), nor a command's expiry, which whatever read found it past its time writes. No field
/// of a record is kept in the log, only its type and name (data minimization).
public enum AuditRules {
    /// `actor`: whose request writes `records` (its `ChangeWriter`'s).
    public static func entries(for records: [Record], by actor: AuditActor) -> [AuditEntry] {
        guard actor.role != .child else { return [] }
        return records.compactMap { record in
            guard record.modifiedRole != .child, RecordTypeRegistry.types[record.recordType]?.audited == true else { return nil }
            // A command that expired is the clock's doing, marked by whichever read found it past
            // its time (a parent's fetch among them): no one sent or cancelled anything.
            if record.recordType == RecordTypeName.configurationCommand, !record.deleted, record.fields["status"] == .string(CommandStatus.expired.rawValue) {
                return nil
            }
            return AuditEntry(record.deleted ? .recordDeleted : .recordSaved, subjectType: record.recordType, subject: record.recordName)
        }
    }
}

/// An audit event as stored.
public struct AuditEvent: Sendable, Equatable {
    public var id: Int64
    public var at: Date
    public var actor: AuditActor
    public var entry: AuditEntry

    public init(id: Int64, at: Date, actor: AuditActor, entry: AuditEntry) {
        self.id = id
        self.at = at
        self.actor = actor
        self.entry = entry
    }
}

/// A day's count of one parent member's reads of the family's data through one route.
public struct AuditReads: Sendable, Equatable {
    public var date: String
    public var readerMemberID: UUID
    public var route: String
    public var reads: Int

    public init(date: String, readerMemberID: UUID, route: String, reads: Int) {
        self.date = date
        self.readerMemberID = readerMemberID
        self.route = route
        self.reads = reads
    }
}

/// What a parent's read is counted under: the family, the day (UTC), the reading member, the route.
public struct AuditReadsKey: Hashable, Sendable {
    /// The routes whose answers are a member's or a child device's data, as the router names them.
    public static let countedRoutes: Set<String> = [
        "GET /v1/devices/{id}/commands", "GET /v1/devices/{id}/health", "GET /v1/devices/{id}/report", "GET /v1/devices/{id}/shield-state",
        "GET /v1/devices/{id}/summaries", "GET /v1/devices/{id}/usage", "GET /v1/members/{id}/alerts", "GET /v1/members/{id}/budget-status",
        "GET /v1/members/{id}/report", "GET /v1/members/{id}/summaries", "GET /v1/zones/{zone}/changes", "POST /v1/zones/{zone}/records/lookup",
        "POST /v1/zones/{zone}/records/query", "POST /v1/changes/zones", "GET /v1/families/me/export", "GET /v1/members/{id}/export",
    ]

    public var familyID: UUID
    public var date: String
    public var readerMemberID: UUID
    public var route: String

    /// What a read answered with `status` at `now` is counted under, or nil when it is not
    /// counted: only a parent's (with its member) successful reads through `countedRoutes`, on
    /// the day in UTC.
    /// `route` and `now` are asked for only when the rest could count: every request goes through
    /// this, and few are a parent's reads.
    public init?(route: @autoclosure () -> String, reader: AuthenticatedDevice, status: Int, at now: @autoclosure () -> Date) {
        guard reader.role == .parent, let member = reader.memberID, (200..<300).contains(status) else { return nil }
        let route = route()
        guard Self.countedRoutes.contains(route) else { return nil }
        self.init(familyID: reader.familyID, date: DailySummaryCalculator.day(of: now(), in: .gmt), readerMemberID: member, route: route)
    }

    public init(familyID: UUID, date: String, readerMemberID: UUID, route: String) {
        self.familyID = familyID
        self.date = date
        self.readerMemberID = readerMemberID
        self.route = route
    }
}
