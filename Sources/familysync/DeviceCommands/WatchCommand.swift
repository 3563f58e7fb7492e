import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print changes as they come: the SDK's sync engine, long-polling in place of a push.",
        discussion: """
            Continues from where the profile's last watch stopped (the change tokens are kept beside the profile \
            file); the first watch of a profile prints everything there is. Stops with Ctrl-C, or by itself, exit \
            code 4, when the device's credential stops working.
            """
    )

    @OptionGroup var options: ClientOptions
    @Flag(help: "Skip what happened before now.")
    var fromNow = false
    @Flag(help: "Print what changed since the last watch, then exit instead of waiting.")
    var once = false
    @Option(help: "Seconds one long poll is held, 1-60. Default: 30.")
    var pollTimeout: Int = 30
    @Flag(help: "A tracked device: every poll carries its heartbeat (monitoring on) and any queued errors, one request a rhythm (PROTOCOL §6, §10).")
    var heartbeat = false

    func validate() throws {
        guard (1...60).contains(pollTimeout) else { throw ValidationError("--poll-timeout is 1 to 60 seconds") }
        if heartbeat, once { throw ValidationError("--heartbeat rides on the polls a watch holds, and --once holds none: 'familysync health report' sends one") }
    }

    func run() async throws {
        let context = try options.context()
        let (profile, client) = heartbeat ? try await context.trackedDevice(for: "--heartbeat") : try context.device()
        let carried = heartbeat ? PollHeartbeat(reporter: HealthReporter(store: context.stateStore())) { MonitoringStatus(monitoringActive: true) } : nil
        let engine = SyncEngine(
            client: client, store: context.stateStore(), credentialReference: profile.deviceId.lowercased, pollTimeout: pollTimeout, heartbeat: carried
        )
        // The engine hands over its events one at a time, so it runs beside the loop that prints them.
        let running = Task { [fromNow, once] () async throws in
            do {
                if fromNow { try await engine.startFromNow() }
                guard once else { return await engine.run() }
                try await engine.fetchChanges()
            } catch {
                await engine.stop()
                throw error
            }
            await engine.stop()
        }
        for await event in engine.events {
            if case .stopped(let reason) = event {
                // A script reads the reason on its stream; a person reads it on standard error.
                if context.output.json { try print(event, context.output) }
                throw reason
            }
            try print(event, context.output)
        }
        try await running.value
    }

    private func print(_ event: SyncEvent, _ output: Output) throws {
        if output.json { return try output.compact(WatchLine(event)) }
        let now = Human.instant(Date()).suffix(8)
        switch event {
        case .changes(let zone, let records):
            for record in records {
                output.line("\(now)  \(zone)  \(record.recordType)  \(record.recordName)  \(Self.describe(record))")
            }
        case .zoneDeleted(let zone):
            output.line("\(now)  \(zone)  zone deleted")
        case .zoneReset(let zone):
            output.line("\(now)  \(zone)  token expired: the zone follows whole")
        case .waiting(let reason, let wait):
            // Not a change: said on standard error, so that standard output stays the changes.
            FileHandle.standardError.write(Data("familysync: \(reason); trying again in \(Human.seconds(wait))\n".utf8))
        case .sent(let changes, let pending):
            for sent in changes { output.line("\(now)  \(PendingCommand.line(sent))") }
            if pending > 0 { output.line("\(now)  \(pending) change\(pending == 1 ? "" : "s") still to send") }
        case .stopped:
            break
        }
    }

    /// One line about a record, by type.
    static func describe(_ record: RecordBody) -> String {
        if record.deleted == true { return "deleted" }
        let fields = record.fields ?? [:]
        func text(_ key: String) -> String { fields[key]?.text ?? "-" }
        func seconds(_ key: String) -> String {
            if case .number(let value)? = fields[key] { return Human.duration(Int(value)) }
            return "-"
        }
        switch record.recordType {
        case RecordTypeName.appConfiguration:
            let points = fields["pointsPerMinute"].map { ", \($0.text) points a minute" } ?? ""
            return "\(text("displayName")): \(text("category"))\(points), \(fields["blockingEnabled"] == .bool(true) ? "blocked" : "not blocked")"
        case RecordTypeName.configurationCommand:
            return "\(text("commandType")) \(text("status"))" + (fields["error"].map { ": \($0.text)" } ?? "")
        case RecordTypeName.usageRecord:
            let start = fields["sessionStart"].flatMap { Instant.parse($0.text) }
            return "\(text("displayName")) (\(text("category"))) \(seconds("totalSeconds")) from \(Human.instant(start))"
        case RecordTypeName.dailySummary:
            return "\(text("date")): learning \(seconds("totalLearningSeconds")), reward \(seconds("totalRewardSeconds")), \(text("totalPointsEarned")) points"
        case RecordTypeName.deviceHealth:
            let last = fields["lastHeartbeatAt"].flatMap { Instant.parse($0.text) }
            return "\(text("status")), last heartbeat \(Human.instant(last)), errors today \(text("errorsToday")), heartbeat gaps \(text("gapMinutesToday")) min"
        case RecordTypeName.alert:
            return "\(text("kind")): \(text("message"))"
        case RecordTypeName.budget:
            guard let budget = Budget(fields: fields) else { return "\(fields.count) fields" }
            return "\(budget.categoryText), \(budget.allowanceText)"
        default:
            return "\(fields.count) field\(fields.count == 1 ? "" : "s")"
        }
    }
}

/// `watch --json`: one object a line.
struct WatchLine: Encodable {
    var event: String
    var zone: String?
    var records: [RecordBody]?
    var error: ErrorResponse.Body?
    var retryIn: Double?
    var sent: [SentLine]?
    var stillPending: Int?

    init(_ event: SyncEvent) {
        switch event {
        case .changes(let zone, let records): self.event = "changes"; self.zone = zone; self.records = records
        case .zoneDeleted(let zone): self.event = "zoneDeleted"; self.zone = zone
        case .zoneReset(let zone): self.event = "zoneReset"; self.zone = zone
        case .stopped(let reason): self.event = "stopped"; error = ErrorResponse(reason).error
        case .waiting(let reason, let wait): self.event = "waiting"; error = ErrorResponse(reason).error; retryIn = Human.secondsValue(wait)
        case .sent(let changes, let pending): self.event = "sent"; sent = changes.map(SentLine.init); stillPending = pending
        }
    }
}
