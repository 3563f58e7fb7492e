import Foundation

extension Command {
    /// The commands whose payload names apps: `block` and `unblock` (PROTOCOL §7.1, §11).
    public static let appTypes: Set<String> = ["block", "unblock"]
    /// Their payload's one member: the apps, by the `logicalID` their records and usage carry.
    public static let logicalIDsMember = "logicalIDs"
    /// Apps one `block` or `unblock` may name (as many as a schedule's `applications`).
    public static let maximumLogicalIDs = 500
    static let logicalIDsRule = FieldRules.Kind.stringList(
        count: 1...maximumLogicalIDs, check: { (1...255).contains($0.utf8.count) }, "logicalIDs of 1–255 bytes"
    )

    /// A `block` or `unblock` payload naming `logicalIDs`, or the whole device's (empty) for nil.
    public static func appsPayload(_ logicalIDs: [String]?) -> [String: JSONValue] {
        logicalIDs.map { [logicalIDsMember: .array($0.map(JSONValue.string))] } ?? [:]
    }

    /// The apps a stored `block` or `unblock` names; nil when it names none: the whole device.
    public var logicalIDs: [String]? {
        guard case .array(let values)? = payload[Self.logicalIDsMember] else { return nil }
        return values.compactMap { if case .string(let id) = $0 { id } else { nil } }
    }

    /// §7.1's payload of a `block` or `unblock`: `logicalIDs`, 1–500 logicalIDs of 1–255 bytes,
    /// or nothing for the whole device. Any other member (`apps`, say) is 400 naming it and the
    /// name to use, since a list under another name would block or unblock the whole device; an
    /// empty list is 400 too, as it would name no app. Other types' payloads are their own.
    public static func checkPayload(_ payload: [String: JSONValue], type: String, field: String) throws(FamilySyncError) {
        guard appTypes.contains(type) else { return }
        for name in payload.keys.sorted() where name != logicalIDsMember {
            throw .badRequest(
                "A \(type) command names its apps in payload.\(logicalIDsMember), not '\(name)' (no logicalIDs: the whole device).", field: "\(field).\(name)"
            )
        }
        guard let ids = payload[logicalIDsMember] else { return }
        guard FieldRules.accepts(logicalIDsRule, ids) else {
            throw .badRequest(
                "\(logicalIDsMember) is \(FieldRules.describe(logicalIDsRule)); leave it out to \(type) the whole device.", field: "\(field).\(logicalIDsMember)"
            )
        }
    }
}
