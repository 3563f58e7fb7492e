import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// `familysync pending`: the profile's changes made with `--queue` (the SDK engine's outbox, in the
/// profile's state beside its tokens) and not yet answered; `pending send` sends them.
struct PendingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pending",
        abstract: "Changes made with --queue and not yet sent: list them, or send them.",
        discussion: """
            A change made with --queue (budgets set, schedules set, command send) waits in the profile's state until \
            'familysync pending send' or 'familysync watch' sends it: in the order made, each request with an \
            Idempotency-Key, so a change sent again after a lost answer takes effect once (PROTOCOL §1.2.1).
            """,
        subcommands: [List.self, Send.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The changes waiting to be sent, oldest first.")

        @OptionGroup var options: ClientOptions

        func run() async throws {
            let context = try options.context()
            let state = try context.stateStore().load()
            let sending = Swift.Set((state.sending?.changes ?? []).map(\.id))
            let changes = state.unsentChanges
            if context.output.json { return try context.output.document(changes.map { PendingLine($0, sending: sending.contains($0.id)) }) }
            guard !changes.isEmpty else { return context.output.line("Nothing waiting to be sent.") }
            context.output.table(["ID", "MADE", "CHANGE", "STATE"], changes.map { change in
                [change.id.lowercased, Human.instant(change.madeAt), PendingCommand.describe(change), sending.contains(change.id) ? "sending" : "pending"]
            })
        }
    }

    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send the changes waiting, in order, and print what became of each.",
            discussion: "Exits non-zero, the changes still waiting, when the server cannot be reached or asks to wait."
        )

        @OptionGroup var options: ClientOptions

        func run() async throws {
            let context = try options.context()
            let (profile, client) = try context.device()
            let engine = SyncEngine(client: client, store: context.stateStore(), credentialReference: profile.deviceId.lowercased)
            let sending = Task {
                defer { Task { await engine.stop() } }
                try await engine.sendPendingChanges()
            }
            var answered = 0
            for await event in engine.events {
                guard case .sent(let changes, _) = event else { continue }
                answered += changes.count
                for sent in changes {
                    if context.output.json { try context.output.compact(SentLine(sent)) } else { context.output.line(PendingCommand.line(sent)) }
                }
            }
            try await sending.value
            if !context.output.json && answered == 0 { context.output.line("Nothing waiting to be sent.") }
        }
    }

    /// `--queue`: the change kept with the profile's pending ones, and said so.
    static func queue(_ change: PendingChange, context: ClientContext) async throws {
        let (profile, client) = try context.device()
        let engine = SyncEngine(client: client, store: context.stateStore(), credentialReference: profile.deviceId.lowercased)
        try await engine.add(change)
        let waiting = try engine.pendingChanges().count
        try context.output.result(
            PendingLine(change, sending: false),
            "Queued: \(describe(change)). \(waiting) change\(waiting == 1 ? "" : "s") waiting; 'familysync pending send' sends them."
        )
    }

    /// One line about a change waiting.
    static func describe(_ change: PendingChange) -> String {
        switch change.kind {
        case .record(let zone, let operation):
            let type = operation.record.recordType ?? "record"
            return "\(operation.operationType.isDelete ? "delete" : "save") \(type) \(operation.record.recordName) in \(zone)"
        case .command(let child, let request):
            return "\(request.commandType) command to \(child.lowercased)"
        }
    }

    /// One line about what became of a change sent.
    static func line(_ sent: SentChange) -> String {
        let what = describe(sent.change)
        switch sent.outcome {
        case .saved(let record):
            return "\(what): \(record.outcome ?? "saved")" + (record.resolution != nil ? " (it won a conflict)" : "")
        case .conflict(let server, _):
            return "\(what): another change stands (§5.4), the server's record is \(server.recordChangeTag ?? "-")"
        case .commandCreated(let command):
            return "\(what): sent, command \(command.commandId) (\(command.status.rawValue))"
        case .failed(let error):
            return "\(what): failed, \(error)"
        }
    }
}

/// `pending --json`: one change waiting.
struct PendingLine: Encodable {
    var change: PendingChange
    var state: String

    init(_ change: PendingChange, sending: Bool) {
        self.change = change
        state = sending ? "sending" : "pending"
    }
}

/// What became of a change, for `pending send --json` and `watch --json`.
struct SentLine: Encodable {
    var change: PendingChange
    var outcome: String
    var record: RecordBody?
    var serverRecord: RecordBody?
    var command: CommandBody?
    var error: ErrorResponse.Body?

    init(_ sent: SentChange) {
        change = sent.change
        switch sent.outcome {
        case .saved(let saved): outcome = "saved"; record = saved
        case .conflict(let server, let reason): outcome = "conflict"; serverRecord = server; error = ErrorResponse(reason).error
        case .commandCreated(let created): outcome = "commandCreated"; command = created
        case .failed(let reason): outcome = "failed"; error = ErrorResponse(reason).error
        }
    }
}
