import Foundation

/// Which devices a committed change wakes with a background push (PROTOCOL §12), and when: the
/// same rule as a long poll's (`ChangeNotice.concerns`), at most one push a device per interval.
/// Pure: the change log asks it for the devices of the family that have a push registration.
public enum BackgroundPush {
    public static let defaultMinimumInterval: TimeInterval = 30
    /// A background push not delivered within an hour is not sent: the device has synced since,
    /// or its next poll will tell it.
    public static let lifetime: TimeInterval = 3_600
    /// Zone lists longer than this many bytes are left out of the payload (APNs takes 4 KB): the
    /// device then reads the database's changes, which it does anyway.
    public static let maximumZoneListBytes = 3_000

    /// The devices among `registered` that `notices` concern, with the zones that changed for each
    /// (sorted; empty when only devices or the family changed, which a push still announces). The
    /// device whose write it was is left out: it knows, and a push would spend its allowance.
    public static func targets(of notices: [ChangeNotice], registered: [AuthenticatedDevice], writer: UUID?) -> [UUID: [String]] {
        var targets: [UUID: Set<String>] = [:]
        for device in registered where device.status == .active && device.deviceID != writer {
            for notice in notices where notice.concerns(device) {
                var zones = targets[device.deviceID] ?? []
                if case .zone(let name) = notice.subject { zones.insert(name) }
                targets[device.deviceID] = zones
            }
        }
        return targets.mapValues { $0.sorted() }
    }

    /// Who a transaction's pushes go to (§12), among the family's devices with a registration:
    /// a background push to each that a change concerns (`targets`, per writer, each writer left
    /// out of its own changes), unless it holds a poll now (the poll tells it); and each new
    /// alert's visible notification to every active parent device, polling or not.
    public static func plan(
        changes: [(writer: UUID?, notice: ChangeNotice)], registered: [(device: AuthenticatedDevice, polling: Bool)]
    ) -> (background: [UUID: Set<String>], alertRecipients: [UUID]) {
        let reachable = registered.filter { !$0.polling }.map(\.device)
        var background: [UUID: Set<String>] = [:]
        for (writer, group) in Dictionary(grouping: changes, by: \.writer) {
            for (device, zones) in targets(of: group.map(\.notice), registered: reachable, writer: writer) {
                background[device, default: []].formUnion(zones)
            }
        }
        let parents = registered.map(\.device).filter { $0.role == .parent && $0.status == .active }.map(\.deviceID)
        return (background, parents)
    }

    /// When a push may go, coalescing: not before `minimumInterval` after the last one sent.
    public static func notBefore(now: Date, lastSent: Date?, minimumInterval: TimeInterval = defaultMinimumInterval) -> Date {
        guard let lastSent else { return now }
        return max(now, lastSent.addingTimeInterval(minimumInterval))
    }

    /// The APNs payload: `{"aps": {"content-available": 1}, "familysync": {"zones": […]}}`, the
    /// zones left out when there are too many to fit.
    public static func payload(zones: [String]) -> [String: JSONValue] {
        let bytes = zones.reduce(0) { $0 + $1.utf8.count + 3 }
        let familysync: [String: JSONValue] = bytes > maximumZoneListBytes ? [:] : ["zones": .array(zones.map(JSONValue.string))]
        return ["aps": .object(["content-available": .number(1)]), "familysync": .object(familysync)]
    }
}
