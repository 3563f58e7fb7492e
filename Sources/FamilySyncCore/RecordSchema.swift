import Foundation

/// The record types of PROTOCOL §5.2: where each may live, who may write it through
/// `records/modify`, and what its fields must be. One table, so that every write is checked the
/// same way.
public enum RecordSchema {
    public enum ZoneKind: Sendable, Equatable {
        /// `child-<deviceId>`
        case child
        /// `family`
        case family
        /// Any other zone a parent made.
        case custom
    }

    public struct Rule: Sendable {
        public var zones: Set<ZoneKindKey>
        /// Roles that may write it through `records/modify`; empty: only through its own endpoint.
        public var writers: Set<DeviceRole>
        public var writtenElsewhere: String?
    }

    public enum ZoneKindKey: Sendable, Hashable { case child, family, custom }

    /// Largest `fields` of one record, serialised (PROTOCOL §9).
    public static let maximumFieldsBytes = 256 * 1024

    public static let rules: [String: Rule] = [
        "AppConfiguration": Rule(zones: [.child], writers: [.parent]),
        "DeviceSettings": Rule(zones: [.child, .family], writers: [.parent]),
        "ConfigurationCommand": Rule(zones: [.child], writers: [], writtenElsewhere: "POST /v1/devices/{id}/commands and POST /v1/commands/{id}/result"),
        "UsageRecord": Rule(zones: [.child], writers: [], writtenElsewhere: "POST /v1/usage"),
        "DailySummary": Rule(zones: [.child], writers: [], writtenElsewhere: "the server (it derives them from usage)"),
    ]

    /// Custom types: any JSON object, parents only, any zone.
    public static func isCustom(_ type: String) -> Bool { type.hasPrefix("x-") }

    /// Whether `role` may write a record of `type` into a zone of `kind` through `records/modify`.
    public static func checkWrite(type: String, zone: ZoneKind, role: DeviceRole, field: String) throws(FamilySyncError) {
        guard type.utf8.count <= 255, !type.isEmpty else { throw .badRequest("A record type is 1–255 characters.", field: field) }
        if isCustom(type) {
            guard role == .parent else { throw FamilySyncError(.accessDenied, "Only a parent writes custom records.") }
            return
        }
        guard let rule = rules[type] else {
            throw .badRequest("Unknown record type '\(type.prefix(64))'; custom types start with x-.", field: field)
        }
        if let elsewhere = rule.writtenElsewhere {
            throw FamilySyncError(.accessDenied, "\(type) records are written by \(elsewhere), not through records/modify.")
        }
        guard rule.writers.contains(role) else {
            throw FamilySyncError(.accessDenied, "A \(role.rawValue) device may not write \(type) records.")
        }
        let key: ZoneKindKey = switch zone { case .child: .child; case .family: .family; case .custom: .custom }
        guard rule.zones.contains(key) else {
            throw .badRequest("\(type) records do not belong in this zone.", field: field)
        }
    }

    /// Checks the fields a record of `type` will hold (after an update's merge).
    public static func validate(type: String, fields: [String: JSONValue], field: String) throws(FamilySyncError) {
        switch type {
        case "AppConfiguration":
            try AppConfigurationFields.validate(fields, field: field)
        default:
            return  // DeviceSettings and x- types are free-form objects, limited only in size.
        }
    }
}

/// `AppConfiguration` (PROTOCOL §5.2).
enum AppConfigurationFields {
    enum Kind { case string(ClosedRange<Int>), integer(ClosedRange<Int>), bool, instant, category }

    static let members: [String: (kind: Kind, required: Bool)] = [
        "logicalID": (.string(1...255), true),
        "tokenHash": (.string(0...1024), false),
        "bundleIdentifier": (.string(0...255), false),
        "displayName": (.string(1...255), true),
        "sfSymbolName": (.string(0...255), false),
        "category": (.category, true),
        "pointsPerMinute": (.integer(0...1000), false),
        "isEnabled": (.bool, true),
        "blockingEnabled": (.bool, true),
        "dateAdded": (.instant, false),
    ]

    /// The categories of the first cut; budget categories (§8) are not yet defined.
    static let categories: Set<String> = ["learning", "reward"]

    static func validate(_ fields: [String: JSONValue], field: String) throws(FamilySyncError) {
        for name in fields.keys.sorted() where members[name] == nil {
            throw .badRequest("Unknown member '\(name)' of AppConfiguration.", field: "\(field).\(name)")
        }
        for (name, rule) in members.sorted(by: { $0.key < $1.key }) {
            let path = "\(field).\(name)"
            guard let value = fields[name], value != .null else {
                if rule.required { throw .badRequest("AppConfiguration needs '\(name)'.", field: path) }
                continue
            }
            switch (rule.kind, value) {
            case (.string(let length), .string(let text)) where length.contains(text.count):
                continue
            case (.integer(let range), .number(let number)) where number.rounded() == number && range.contains(Int(exactly: number) ?? -1):
                continue
            case (.bool, .bool):
                continue
            case (.instant, .string(let text)) where Instant.parse(text) != nil:
                continue
            case (.category, .string(let text)) where categories.contains(text):
                continue
            default:
                throw .badRequest("'\(name)' has the wrong type or is out of range (\(describe(rule.kind))).", field: path)
            }
        }
    }

    static func describe(_ kind: Kind) -> String {
        switch kind {
        case .string(let length): "a string of \(length.lowerBound)–\(length.upperBound) characters"
        case .integer(let range): "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .bool: "true or false"
        case .instant: "an RFC 3339 instant"
        case .category: "learning or reward"
        }
    }
}
