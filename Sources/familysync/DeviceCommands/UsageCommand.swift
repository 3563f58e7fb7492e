import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

struct UsageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usage",
        abstract: "Upload a child's usage, as sessions (queued until the server takes them) or as a day's running totals.",
        subcommands: [Upload.self, Flush.self, Totals.self]
    )

    struct Totals: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Report this device's running totals for a day from a JSON or CSV file (a tracked device).",
            discussion: """
                PROTOCOL §9.2: each app's total so far today. The server keeps each app's largest total, so report as \
                often as they grow (the budget seed does every 15 minutes); a late or repeated report lowers nothing. \
                JSON: the POST /v1/usage/totals body, or an array of its apps. CSV: a header row with the columns \
                logicalID, displayName, totalSeconds and, if wanted, bundleIdentifier, category, pickups, earnedPoints. \
                Prints the day's summary and the budget alerts the report made.
                """
        )

        @OptionGroup var options: ClientOptions
        @Argument(help: "The file: .json, or CSV.")
        var file: String
        @Option(help: "The day, YYYY-MM-DD. Default: the file's date, else today in the time zone.")
        var date: String?
        @Option(help: "The time zone of the day. Default: the file's; else, with --date or the file's date, the device's; else this machine's.")
        var timeZone: String?

        func run() async throws {
            let context = try options.context()
            let contents = try TotalsFile.read(file)
            let (_, client) = try await context.trackedDevice(for: "reporting totals")
            var zone = timeZone ?? contents.timeZone
            let day = date ?? contents.date
            if day == nil, zone == nil { zone = TimeZone.current.identifier }
            let today = DateRangeOptions.today(in: zone.flatMap(TimeZone.init(identifier:)) ?? .current)
            let answer = try await client.uploadTotals(UsageTotalsRequest(timeZone: zone, date: day ?? today, apps: contents.apps))
            if context.output.json { return try context.output.document(answer) }
            context.output.line("Reported \(contents.apps.count) app total\(contents.apps.count == 1 ? "" : "s") for \(answer.summary.date).")
            SummaryTable.print([answer.summary], context.output)
            if !answer.alerts.isEmpty {
                context.output.line("")
                context.output.table(["WHEN", "ALERT", "MESSAGE", "STATE", "ID"], answer.alerts.map(AlertsCommand.List.row))
            }
        }
    }

    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue the usage records of a JSON or CSV file, then send the queue (a tracked device).",
            discussion: """
                JSON: PROTOCOL §7.2's upload body, or an array of its records. CSV: a header row with the columns \
                logicalID, displayName, category, sessionStart, sessionEnd and, if wanted, recordID, bundleIdentifier, \
                totalSeconds (default: the session's length), earnedPoints. A record without a recordID gets one derived \
                from the app and the session, so that uploading the same file twice counts its records once.
                """
        )

        @OptionGroup var options: ClientOptions
        @Argument(help: "The file: .json, or CSV.")
        var file: String
        @Option(help: "The time zone the child's days are counted in. Default: the file's timeZone, else the device's.")
        var timeZone: String?

        func run() async throws {
            let context = try options.context()
            let (profile, client) = try await context.trackedDevice(for: "uploading usage")
            let contents = try UsageFile.read(file, deviceID: profile.deviceId)
            let queue = UsageQueueCLI(context: context)
            try await queue.queue.enqueue(contents.records)
            try await queue.flush(client, timeZone: timeZone ?? contents.timeZone, read: contents.records.count)
        }
    }

    struct Flush: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send the usage still queued from earlier uploads (a tracked device).")

        @OptionGroup var options: ClientOptions
        @Option(help: "The time zone the child's days are counted in. Default: the device's.")
        var timeZone: String?

        func run() async throws {
            let context = try options.context()
            let (_, client) = try await context.trackedDevice(for: "uploading usage")
            try await UsageQueueCLI(context: context).flush(client, timeZone: timeZone, read: nil)
        }
    }
}

/// The SDK's offline queue in the profile's state file, with a patience fit for a command line:
/// three tries, waiting as the server asks.
struct UsageQueueCLI {
    let context: ClientContext
    let queue: UsageUploadQueue

    init(context: ClientContext) {
        self.context = context
        queue = UsageUploadQueue(store: context.stateStore(), backoff: .init(initial: .milliseconds(500), maximum: .seconds(5), attempts: 3))
    }

    struct Report: Encodable {
        struct Rejected: Encodable {
            var recordID: String
            var error: ErrorResponse.Body
        }

        var accepted: Int
        var duplicates: Int
        var rejected: [Rejected]
        var stillQueued: Int
        var summaries: [DailySummaryBody]
    }

    func flush(_ client: FamilySyncClient, timeZone: String?, read: Int?) async throws {
        let delivery: UsageUploadQueue.Delivery
        do {
            delivery = try await queue.flush(with: client, timeZone: timeZone)
        } catch let error as FamilySyncError {
            let left = try await queue.pending().count
            var failure = error
            failure.reason += " \(left) usage record\(left == 1 ? " stays" : "s stay") queued; 'familysync usage flush' sends \(left == 1 ? "it" : "them") later."
            throw failure
        }
        let report = Report(
            accepted: delivery.accepted, duplicates: delivery.duplicates,
            rejected: delivery.rejected.map { .init(recordID: $0.record.recordID, error: ErrorResponse($0.error).error) },
            stillQueued: try await queue.pending().count, summaries: delivery.summaries
        )
        if context.output.json {
            try context.output.document(report)
        } else {
            if let read { context.output.line("Read \(read) usage record\(read == 1 ? "" : "s").") }
            context.output.line("The server took \(report.accepted) new and \(report.duplicates) it already had; \(report.stillQueued) queued.")
            // The last summary of each day is the one after every batch.
            var latest: [String: DailySummaryBody] = [:]
            for summary in delivery.summaries { latest[summary.date] = summary }
            if !latest.isEmpty { SummaryTable.print(latest.values.sorted { $0.date < $1.date }, context.output) }
        }
        guard delivery.rejected.isEmpty else {
            let each = delivery.rejected.map { "\($0.record.recordID) (\($0.record.logicalID) from \(Instant.format($0.record.sessionStart))): \($0.error)" }
            let count = delivery.rejected.count
            throw OperatorError.runtime("the server refused \(count) usage record\(count == 1 ? "" : "s"), dropped from the queue: " + each.joined(separator: "; "))
        }
    }
}
