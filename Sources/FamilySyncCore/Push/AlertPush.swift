import Foundation

/// The visible notification a new `Alert` (PROTOCOL §9.4) sends to every parent device with a push
/// registration (§12): `alert` type, priority 10, its title and body from the alert.
public enum AlertPush {
    /// An alert older than a day is news no longer: not sent after that.
    public static let lifetime: TimeInterval = 86_400

    public static func title(of alert: Alert) -> String {
        switch alert.kind {
        case .budget: alert.percent.map { "Budget \($0)% used" } ?? "Budget reached"
        case .threshold: "Usage alert"
        case .tracking: "Tracking stopped"
        }
    }

    /// What the outbox row keeps: enough to build the APNs payload, and the alert's ids so that an
    /// app can open it.
    public static func content(of alert: Alert) -> [String: JSONValue] {
        [
            "title": .string(title(of: alert)), "body": .string(alert.message), "alertID": .string(alert.alertID.lowercased),
            "memberID": .string(alert.memberID.lowercased), "kind": .string(alert.kind.rawValue),
        ]
    }

    /// The APNs payload: `{"aps": {"alert": {"title", "body"}, "sound": "default"}, "familysync":
    /// {"alertID", "memberID", "kind"}}`.
    public static func payload(content: [String: JSONValue]) -> [String: JSONValue] {
        var familysync = content
        let title = familysync.removeValue(forKey: "title") ?? .string("")
        let body = familysync.removeValue(forKey: "body") ?? .string("")
        return ["aps": .object(["alert": .object(["title": title, "body": body]), "sound": .string("default")]), "familysync": .object(familysync)]
    }
}
