import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// `familysync health …` (PROTOCOL §10): is a child's tracking working, and a heartbeat by hand.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "A device's tracking health (PROTOCOL §10): show it, export it, or report a heartbeat by hand.",
        subcommands: [Show.self, Report.self],
        defaultSubcommand: Show.self
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The child device's health on a day: status, heartbeats, gaps, errors; --export prints the diagnostics.")

        @OptionGroup var options: ClientOptions
        @OptionGroup var child: ChildOption
        @Option(help: "The device's local day, YYYY-MM-DD. Default: its today.")
        var date: String?
        @Flag(help: "The plain-text diagnostics export (EXTENSION HEALTH, DATA GAPS, ERROR LOG), as the server writes it.")
        var export = false

        func run() async throws {
            let context = try options.context()
            let (profile, client) = try context.device()
            let device = try await child.resolve(profile, client)
            if export {
                let text = try await client.healthExport(of: device.id, date: date)
                return FileHandle.standardOutput.write(Data(text.utf8))
            }
            let health = try await client.health(of: device.id, date: date)
            if context.output.json { return try context.output.document(health) }
            context.output.line("\(device.name) on \(health.date): \(health.status)"
                + (health.lastHeartbeatAt.map { ", last heartbeat \(Human.instant($0))" } ?? ", no heartbeat yet")
                + (health.heartbeatGapSeconds.map { " (\(Human.duration($0)) ago)" } ?? "") + ".")
            context.output.line("Missed notifications \(health.missedNotifications), sequence resets \(health.sequenceResets), errors \(health.errorsToday)"
                + (health.memoryUsageMB.map { ", memory \(DeviceHealth.megabytes($0)) MB" } ?? "") + "; heartbeat gaps \(health.gapMinutesToday) min.")
            if !health.gapsToday.isEmpty {
                context.output.line()
                context.output.table(["GAP FROM", "TO", "MINUTES", "DETECTED BY"], health.gapsToday.map { gap in
                    [Human.instant(gap.start), Human.instant(gap.end), String(gap.durationMinutes), gap.detectionMethod]
                })
            }
            if !health.lastErrors.isEmpty {
                context.output.line()
                context.output.table(["WHEN", "ACTION", "OUTCOME", "EVENT", "DESCRIPTION"], health.lastErrors.map { error in
                    [Human.instant(error.timestamp), error.action, error.success ? "ok" : "failed", error.eventName, error.errorDescription ?? "-"]
                })
            }
        }
    }

    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a heartbeat now from this device (a tracked one), with the errors given and any still queued.",
            discussion: """
                What an app's monitoring side sends every 30-60 seconds, by hand: to check a setup, or to script a device. \
                --error ACTION:EVENT[:DESCRIPTION] logs a failed event of the extension (ACTION: record_usage, \
                post_notification, memory_warning or x-...); errors are queued in the profile's state until the server has them.
                """
        )

        @OptionGroup var options: ClientOptions
        @Flag(help: "Monitoring is off on this device (it turns inactive, never stale).")
        var off = false
        @Option(help: "The extension's notification sequence number.")
        var sequence: Int64?
        @Option(help: "The extension's memory use, in MB (4.1).")
        var memoryMb: Double?
        @Option(help: "A failed event of the extension: ACTION:EVENT[:DESCRIPTION]. Repeatable.")
        var error: [String] = []

        func run() async throws {
            let context = try options.context()
            if let memoryMb, !memoryMb.isFinite { throw OperatorError.configuration("--memory-mb is a number of megabytes, as 4.1") }
            let errors = try error.map { text -> ExtensionErrorBody in
                let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
                guard parts.count >= 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw OperatorError.configuration("--error is ACTION:EVENT[:DESCRIPTION], as record_usage:intervalDidStart:disk full")
                }
                return ExtensionErrorBody(id: UUID(), timestamp: Date(), eventName: parts[1], action: parts[0], success: false, errorDescription: parts.count > 2 ? parts[2] : nil)
            }
            let (_, client) = try await context.trackedDevice(for: "reporting health")
            let reporter = HealthReporter(store: context.stateStore())
            for error in errors { try await reporter.record(error) }
            let health = try await reporter.beat(with: client, monitoringActive: !off, memoryUsageMB: memoryMb, notificationSequence: sequence)
            try context.output.result(health, "Heartbeat sent: \(health.status) on \(health.date); \(health.errorsToday) error\(health.errorsToday == 1 ? "" : "s") today, heartbeat gaps \(health.gapMinutesToday) min.")
        }
    }
}
