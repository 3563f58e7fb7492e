import Crypto
import Foundation

/// An alert (PROTOCOL §9.4): an `Alert` record `alert-<alertID>` in the member's zone.
public struct Alert: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case budget, threshold, tracking
    }

    public var alertID: UUID
    public var kind: Kind
    public var memberID: UUID
    public var deviceID: UUID?
    public var category: String?
    public var budgetID: String?
    public var date: String?
    public var budgetMinutes: Int?
    public var usedMinutes: Int?
    public var percent: Int?
    public var message: String
    public var createdAt: Date
    public var dismissedAt: Date?
    /// A threshold alert's: the device's own id for it, and the app it watched (else `category`).
    public var clientAlertID: UUID?
    public var logicalID: String?

    public init(
        alertID: UUID, kind: Kind, memberID: UUID, deviceID: UUID?, category: String?, budgetID: String?, date: String?, budgetMinutes: Int?,
        usedMinutes: Int?, percent: Int?, message: String, createdAt: Date, dismissedAt: Date?, clientAlertID: UUID? = nil, logicalID: String? = nil
    ) {
        self.alertID = alertID
        self.kind = kind
        self.memberID = memberID
        self.deviceID = deviceID
        self.category = category
        self.budgetID = budgetID
        self.date = date
        self.budgetMinutes = budgetMinutes
        self.usedMinutes = usedMinutes
        self.percent = percent
        self.message = message
        self.createdAt = createdAt
        self.dismissedAt = dismissedAt
        self.clientAlertID = clientAlertID
        self.logicalID = logicalID
    }

    public var recordName: String { Self.recordName(alertID) }
    public static func recordName(_ id: UUID) -> String { "alert-\(id.lowercased)" }

    /// A budget alert's id, from (member, budget, day, percent) alone: the first 128 bits of their
    /// SHA-256, marked as an RFC 9562 version 8 (custom) UUID. The member is in it because budget
    /// ids repeat across members (each child's `social_media` budget): without it two siblings'
    /// alerts shared an id, and dismissing one could dismiss the other.
    public static func budgetAlertID(member: UUID, budgetID: String, date: String, percent: Int) -> UUID {
        derivedID("familysync.budget-alert\u{0}\(member.lowercased)\u{0}\(budgetID)\u{0}\(date)\u{0}\(percent)")
    }

    /// A threshold alert's id, from the reporting device and its own id for the alert: a device
    /// cannot name another's alert, and the same report again finds the same alert.
    public static func thresholdAlertID(device: UUID, clientAlertID: UUID) -> UUID {
        derivedID("familysync.threshold-alert\u{0}\(device.lowercased)\u{0}\(clientAlertID.lowercased)")
    }

    /// A tracking alert's id (§10): one per device and local day.
    public static func trackingAlertID(device: UUID, date: String) -> UUID {
        derivedID("familysync.tracking-alert\u{0}\(device.lowercased)\u{0}\(date)")
    }

    /// The tracking alert of a device's day whose heartbeat gaps passed
    /// `HeartbeatRules.trackingAlertMinutes`; nil while they have not.
    public static func tracking(member: UUID, device: UUID, deviceName: String, date: String, gapMinutes: Int, at now: Date) -> Alert? {
        guard gapMinutes > HeartbeatRules.trackingAlertMinutes else { return nil }
        return Alert(
            alertID: trackingAlertID(device: device, date: date), kind: .tracking, memberID: member, deviceID: device, category: nil, budgetID: nil, date: date,
            budgetMinutes: nil, usedMinutes: gapMinutes, percent: nil,
            message: "Tracking on \(deviceName) stopped for \(gapMinutes) minutes on \(date): its monitoring extension sent no heartbeat.", createdAt: now, dismissedAt: nil
        )
    }

    static func derivedID(_ text: String) -> UUID {
        var bytes = Array(SHA256.hash(data: Data(text.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x80
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    public var fields: [String: JSONValue] {
        func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func optional(_ value: Int?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
        var fields: [String: JSONValue] = [
            "alertID": .string(alertID.lowercased), "kind": .string(kind.rawValue), "memberId": .string(memberID.lowercased),
            "deviceId": optional(deviceID?.lowercased), "category": optional(category), "budgetID": optional(budgetID), "date": optional(date),
            "budgetMinutes": optional(budgetMinutes), "usedMinutes": optional(usedMinutes), "percent": optional(percent),
            "message": .string(message), "createdAt": .string(Instant.format(createdAt)),
            "dismissedAt": dismissedAt.map { .string(Instant.format($0)) } ?? .null,
            "clientAlertID": optional(clientAlertID?.lowercased), "logicalID": optional(logicalID),
        ]
        // Null members are not stored (§5.2's records carry what they have).
        fields = fields.filter { $0.value != .null }
        return fields
    }

    public init?(fields: [String: JSONValue]) {
        func string(_ key: String) -> String? { if case .string(let value)? = fields[key] { value } else { nil } }
        func integer(_ key: String) -> Int? { if case .number(let value)? = fields[key], let int = Int(exactly: value) { int } else { nil } }
        guard let id = string("alertID").flatMap(UUID.init(uuidString:)), let kind = string("kind").flatMap(Kind.init(rawValue:)),
            let member = string("memberId").flatMap(UUID.init(uuidString:)), let message = string("message"),
            let created = string("createdAt").flatMap(Instant.parse)
        else { return nil }
        self.init(
            alertID: id, kind: kind, memberID: member, deviceID: string("deviceId").flatMap(UUID.init(uuidString:)), category: string("category"),
            budgetID: string("budgetID"), date: string("date"), budgetMinutes: integer("budgetMinutes"), usedMinutes: integer("usedMinutes"),
            percent: integer("percent"), message: message, createdAt: created, dismissedAt: string("dismissedAt").flatMap(Instant.parse),
            clientAlertID: string("clientAlertID").flatMap(UUID.init(uuidString:)), logicalID: string("logicalID")
        )
    }
}

extension Alert {
    /// What a device says when a threshold it watches fires (§9.4), checked.
    public struct ThresholdReport: Sendable, Equatable {
        public var clientAlertID: UUID
        public var category: CategoryID?
        public var logicalID: String?
        public var usedMinutes: Int
        public var message: String

        public init(clientAlertID: UUID, category: CategoryID?, logicalID: String?, usedMinutes: Int, message: String) {
            self.clientAlertID = clientAlertID
            self.category = category
            self.logicalID = logicalID
            self.usedMinutes = usedMinutes
            self.message = message
        }

        /// One of `category` or `logicalID`; minutes of a day; a message a person reads.
        public func validate() throws(FamilySyncError) {
            guard (category == nil) != (logicalID == nil) else {
                throw .badRequest("A threshold alert names a category or a logicalID, one of them.", field: category == nil ? "category" : "logicalID")
            }
            if let logicalID, !(1...255).contains(logicalID.utf8.count) { throw .badRequest("logicalID is 1–255 bytes.", field: "logicalID") }
            guard (0...1440).contains(usedMinutes) else { throw .badRequest("usedMinutes is from 0 to 1440.", field: "usedMinutes") }
            guard (1...500).contains(message.count) else { throw .badRequest("message is 1–500 characters.", field: "message") }
        }

        /// The category it names, as the request's `category` (§9.1: a family's own needs its record).
        public var namedCategories: [NamedCategory] {
            category.map { [NamedCategory($0, field: "category")] } ?? []
        }

        /// The alert it makes for `device` of `member`, on the device's local `date`.
        public func alert(device: UUID, member: UUID, date: String, at now: Date) -> Alert {
            Alert(
                alertID: Alert.thresholdAlertID(device: device, clientAlertID: clientAlertID), kind: .threshold, memberID: member, deviceID: device,
                category: category?.rawValue, budgetID: nil, date: date, budgetMinutes: nil, usedMinutes: usedMinutes, percent: nil,
                message: message, createdAt: now, dismissedAt: nil, clientAlertID: clientAlertID, logicalID: logicalID
            )
        }

        /// Whether `stored` is this report made before (the same content; its instants aside).
        public func isReported(by stored: Alert) -> Bool {
            stored.kind == .threshold && stored.category == category?.rawValue && stored.logicalID == logicalID
                && stored.usedMinutes == usedMinutes && stored.message == message
        }
    }
}

extension Alert {
    /// A parent's dismissal of the alert stored as `record` (§9.4): the alert as it is after, and
    /// the record to write, nil when it was dismissed already (the first dismissal stands). Nil
    /// when the record holds no alert.
    public static func dismissing(_ record: Record, by parent: UUID, at now: Date) -> (alert: Alert, write: Record?)? {
        guard var alert = Alert(fields: record.fields) else { return nil }
        guard alert.dismissedAt == nil else { return (alert, nil) }
        alert.dismissedAt = now
        return (alert, record.rewritten(fields: alert.fields, by: parent, role: .parent, at: now))
    }
}
