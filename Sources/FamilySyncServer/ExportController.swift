import AsyncAlgorithms
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// `GET /v1/families/me/export` and `GET /v1/members/{id}/export` (PROTOCOL §15.2): everything the
/// server holds about the family, or about one member, streamed as a tar of JSON Lines. The reads
/// run in one snapshot while the response is written; a family of any size is held a part (1 MiB)
/// a kind at a time.
struct ExportController {
    let export: PostgresExport
    let slots: ExportSlots
    let clock: any WallClock

    /// How long an export may take, the client's reading included.
    static let deadline: Duration = .seconds(20 * 60)

    func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.get("families/me/export", use: exportFamily)
            .get("members/:id/export", use: exportMember)
    }

    @Sendable func exportFamily(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        try await archive(context, member: nil)
    }

    @Sendable func exportMember(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        try await archive(context, member: try context.pathID())
    }

    /// Checks and audits before the first byte (so that a refusal is §1.1's JSON); what fails once
    /// streaming has begun ends the connection before the archive's end (no `counts.json`).
    func archive(_ context: FamilySyncRequestContext, member: UUID?) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .exportData)
        guard let slot = slots.take(caller.familyID) else { throw TryAgainReason.exportsBusy.error }
        try await export.begin(familyID: caller.familyID, member: member)
        let now = clock.now()
        let manifest = ExportManifest(
            format: ExportManifest.format, schemaVersion: ExportManifest.schemaVersion, scope: member == nil ? "family" : "member",
            familyId: caller.familyID, memberId: member, exportedAt: now, kinds: ExportManifest.kinds
        )
        let export = export, logger = context.logger, deadline = Self.deadline
        let body = ResponseBody { writer in
            let channel = AsyncChannel<ByteBuffer>()
            let expiry = ExportExpiry()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // The database's part ends here: its connection, its snapshot and the slot go
                    // back even while a slow client still reads the last buffers.
                    defer {
                        slot.release()
                        channel.finish()
                    }
                    let tar = TarStream(channel: channel, modified: now, expiry: expiry)
                    let encoder = WireCoding.makeEncoder()
                    try await tar.file("manifest.json", Array(try encoder.encode(manifest)))
                    try await export.read(familyID: manifest.familyId, member: member) { kind, lines in try await tar.add(kind, lines) }
                    try await tar.finish(counts: Array(try encoder.encode(ExportCounts(lines: await tar.lines, complete: true))))
                }
                // An export that has not been read whole by then is cut: a client reading slowly
                // would otherwise hold a connection and a snapshot (which holds back vacuum) for
                // as long as it liked.
                group.addTask {
                    try? await Task.sleep(for: deadline)
                    guard !Task.isCancelled else { return }
                    expiry.expire()
                    channel.finish()
                }
                for await buffer in channel { try await writer.write(buffer) }
                group.cancelAll()
                do {
                    try await group.waitForAll()
                } catch {
                    logger.warning("An export was cut short", metadata: ["error": "\(DatabaseErrorTranslation.describeForOperator(error))"])
                    throw error
                }
            }
            try await writer.finish(nil)
        }
        let name = "familysync-\(member == nil ? "family" : "member")-\((member ?? caller.familyID).lowercased)-\(DailySummaryCalculator.day(of: now, in: .gmt)).tar"
        return Response(
            status: .ok, headers: [.contentType: "application/x-tar", .contentDisposition: "attachment; filename=\"\(name)\"", .cacheControl: "no-store"], body: body
        )
    }
}

/// An export not read whole within `ExportController.deadline`: its connection is closed before
/// the archive's end.
struct ExportExpired: Error {}

/// Whether an export's time is up, shared by its timer and its producer.
final class ExportExpiry: Sendable {
    private let expired = Atomic<Bool>(false)

    func expire() { expired.store(true, ordering: .relaxed) }
    var isExpired: Bool { expired.load(ordering: .relaxed) }
}
