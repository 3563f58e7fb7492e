import Foundation

/// `AppConfiguration` (PROTOCOL §5.2): an app of a child's device as a parent configured it, or
/// as the device published it (§11).
public enum AppConfiguration {
    public static let rules = FieldRules(RecordTypeName.appConfiguration, [
        "logicalID": (.string(1...255), true),
        "tokenHash": (.string(0...1024), false),
        "bundleIdentifier": (.string(0...255), false),
        "displayName": (.string(1...255), true),
        "sfSymbolName": (.string(0...255), false),
        // Any category id (§9.1); that a family's own `x-…` one has its record is checked with the
        // family's categories (`RecordType.categoryMembers`).
        "category": (.text({ CategoryID(rawValue: $0) != nil }, CategoryID.describedForErrors), true),
        "pointsPerMinute": (.integer(0...1000), false),
        "isEnabled": (.bool, true),
        "blockingEnabled": (.bool, true),
        "dateAdded": (.instant, false),
    ])

    public static func validate(_ fields: [String: JSONValue], recordName: String, field: String) throws(FamilySyncError) {
        try rules.validate(fields, field: field)
    }
}
