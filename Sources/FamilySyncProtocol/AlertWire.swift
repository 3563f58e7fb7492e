import FamilySyncCore
import Foundation

/// `Alert` on the wire (PROTOCOL §9.4): the record's fields, every member present (null where it
/// does not apply).
public struct AlertBody: Codable, Sendable, Equatable {
    public var alertID: UUID
    public var kind: String
    public var memberId: UUID
    public var deviceId: UUID?
    public var category: String?
    public var budgetID: String?
    public var date: String?
    public var budgetMinutes: Int?
    public var usedMinutes: Int?
    public var percent: Int?
    public var message: String
    public var createdAt: Date
    public var dismissedAt: Date?
    /// A threshold alert's: the device's id for it, and the app it watched.
    public var clientAlertID: UUID?
    public var logicalID: String?

    /// In the order the encoder sorts them, as the server writes them too (`WireJSONWritable`).
    package enum CodingKeys: CodingKey, CaseIterable {
        case alertID, budgetID, budgetMinutes, category, clientAlertID, createdAt, date, deviceId, dismissedAt, kind, logicalID, memberId, message, percent,
            usedMinutes
    }

    public init(_ alert: Alert) {
        alertID = alert.alertID
        kind = alert.kind.rawValue
        memberId = alert.memberID
        deviceId = alert.deviceID
        category = alert.category
        budgetID = alert.budgetID
        date = alert.date
        budgetMinutes = alert.budgetMinutes
        usedMinutes = alert.usedMinutes
        percent = alert.percent
        message = alert.message
        createdAt = alert.createdAt
        dismissedAt = alert.dismissedAt
        clientAlertID = alert.clientAlertID
        logicalID = alert.logicalID
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(alertID.lowercased, forKey: .alertID)
        try container.encode(kind, forKey: .kind)
        try container.encode(memberId.lowercased, forKey: .memberId)
        try container.encode(deviceId?.lowercased, forKey: .deviceId)
        try container.encode(category, forKey: .category)
        try container.encode(budgetID, forKey: .budgetID)
        try container.encode(date, forKey: .date)
        try container.encode(budgetMinutes, forKey: .budgetMinutes)
        try container.encode(usedMinutes, forKey: .usedMinutes)
        try container.encode(percent, forKey: .percent)
        try container.encode(message, forKey: .message)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(dismissedAt, forKey: .dismissedAt)
        try container.encode(clientAlertID?.lowercased, forKey: .clientAlertID)
        try container.encode(logicalID, forKey: .logicalID)
    }
}

/// `POST /v1/alerts`: a threshold a tracked device watches fired (§9.4).
public struct ReportAlertRequest: Codable, Sendable, Equatable {
    public var clientAlertID: UUID
    public var kind: String
    public var category: String?
    public var logicalID: String?
    public var usedMinutes: Int
    public var message: String

    public init(clientAlertID: UUID, kind: String = "threshold", category: String? = nil, logicalID: String? = nil, usedMinutes: Int, message: String) {
        self.clientAlertID = clientAlertID
        self.kind = kind
        self.category = category
        self.logicalID = logicalID
        self.usedMinutes = usedMinutes
        self.message = message
    }
}

public struct AlertList: Codable, Sendable, Equatable {
    public var alerts: [AlertBody]
    public init(alerts: [AlertBody]) { self.alerts = alerts }
}

/// `GET /v1/members/{id}/budget-status` (§9.3).
public struct BudgetStatusResponse: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var budgetID: String
        public var category: String
        public var budgetMinutes: Int
        public var usedMinutes: Int
        public var remainingMinutes: Int
        public var percent: Int
        public var isOverBudget: Bool

        public init(_ status: BudgetStatus) {
            budgetID = status.budgetID
            category = status.scope.fieldValue
            budgetMinutes = status.budgetMinutes
            usedMinutes = status.usedMinutes
            remainingMinutes = status.remainingMinutes
            percent = status.percent
            isOverBudget = status.isOverBudget
        }
    }

    public var date: String
    public var budgets: [Entry]

    public init(date: String, budgets: [Entry]) {
        self.date = date
        self.budgets = budgets
    }
}
