import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `GET /v1/families/me/export` and `GET /v1/members/{id}/export` (PROTOCOL §15.2): everything the
/// server holds about the family, or about one member, streamed as a tar of JSON Lines. The reads
/// run in one snapshot while the response is written; a family of any size is held a part (1 MiB)
/// a kind at a time.
package struct ExportController {
    let export: PostgresExport
    let slots: ExportSlots
    let clock: any WallClock

    package init(export: PostgresExport, slots: ExportSlots, clock: any WallClock) {
        self.export = export
        self.slots = slots
        self.clock = clock
    }

    /// How long an export may take, the client's reading included.
    static let deadline: Duration = .seconds(20 * 60)

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
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
        try await export.begin(familyID: caller.familyID, member: member, as: context.writer)
        let now = clock.now()
        let manifest = ExportManifest(
            format: ExportManifest.format, schemaVersion: ExportManifest.schemaVersion, scope: member == nil ? "family" : "member",
            familyId: caller.familyID, memberId: member, exportedAt: now, kinds: ExportManifest.kinds
        )
        let body = ExportArchive(export: export, deadline: Self.deadline).body(manifest, slot: slot, logger: context.logger)
        return Response(
            status: .ok, headers: [.contentType: "application/x-tar", .contentDisposition: "attachment; filename=\"\(manifest.fileName)\"", .cacheControl: "no-store"],
            body: body
        )
    }
}
