import Foundation

/// What a device blocks outside schedules (PROTOCOL §11's `blockedApps`): its `AppConfiguration`
/// records with `blockingEnabled`, then its executed `block` and `unblock` commands in the order
/// they were carried out, the latest for an app winning. A command's `payload.logicalIDs` names
/// the apps; a `block` without it blocks the whole device ("block now"), and an `unblock` without
/// it lifts that and every command's per-app choice, leaving the configuration as it is.
public struct BlockedApps: Sendable, Equatable {
    public var applications: [String]
    public var wholeDevice: Bool

    public init(applications: [String], wholeDevice: Bool) {
        self.applications = applications
        self.wholeDevice = wholeDevice
    }

    /// From the configured blocking and the commands carried out at or before `instant`.
    public static func at(_ instant: Date, configuredBlocked: Set<String>, commands: [Command]) -> BlockedApps {
        var overrides: [String: Bool] = [:]
        var wholeDevice = false
        let executed = commands.filter { $0.status == .executed && ($0.executedAt.map { $0 <= instant } ?? false) && Command.appTypes.contains($0.commandType) }
            .sorted { ($0.executedAt!, $0.commandID.uuidString) < ($1.executedAt!, $1.commandID.uuidString) }
        for command in executed {
            let block = command.commandType == "block"
            if let ids = command.logicalIDs {
                for id in ids { overrides[id] = block }
            } else if block {
                wholeDevice = true
            } else {
                wholeDevice = false
                overrides = [:]
            }
        }
        var blocked = configuredBlocked
        for (id, block) in overrides {
            if block { blocked.insert(id) } else { blocked.remove(id) }
        }
        return BlockedApps(applications: blocked.sorted(), wholeDevice: wholeDevice)
    }
}
