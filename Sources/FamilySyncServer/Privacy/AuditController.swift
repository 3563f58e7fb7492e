import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `GET /v1/audit` and `GET /v1/audit/reads` (PROTOCOL §15.4): what parents and the server changed
/// of the family's rules and data, and how often parents read it; for parents only.
package struct AuditController {
    let audit: PostgresAuditStore

    package init(audit: PostgresAuditStore) {
        self.audit = audit
    }

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.get("audit", use: list)
            .get("audit/reads", use: reads)
    }

    /// Newest first, a page at a time (`cursor` from the previous page), optionally only what
    /// concerns one member (`member`).
    @Sendable func list(_ request: Request, context: FamilySyncRequestContext) async throws -> AuditPage {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .readAudit)
        let parameters = request.uri.queryParameters
        let member = try parameters.get("member").map { text throws(FamilySyncError) in try Validation.uuid(text, field: "member") }
        let before = try parameters.get("cursor").map { text throws(FamilySyncError) in
            guard let id = Int64(text), id > 0 else { throw .badRequest("The cursor is not one this server gave.", field: "cursor") }
            return id
        }
        let limit = try request.pageLimit()
        let events = try await audit.events(familyID: caller.familyID, member: member, before: before, limit: limit)
        return AuditPage(events: events.map(AuditEventBody.init), cursor: events.count == limit ? events.last.map { String($0.id) } : nil)
    }

    /// The parents' reads of the days `from`…`to` (UTC), counted per day, member and route.
    @Sendable func reads(_ request: Request, context: FamilySyncRequestContext) async throws -> AuditReadsList {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .readAudit)
        let dates = try request.dateRange()
        let counted = try await audit.reads(familyID: caller.familyID, from: dates[0], to: dates[dates.count - 1])
        return AuditReadsList(days: counted.map { AuditReadsBody(date: $0.date, memberId: $0.readerMemberID, route: $0.route, reads: $0.reads) })
    }
}

extension AuditEventBody {
    init(_ event: AuditEvent) {
        self.init(
            id: String(event.id), at: event.at, action: event.entry.action.rawValue,
            actor: AuditActorBody(role: event.actor.role.rawValue, deviceId: event.actor.deviceID, memberId: event.actor.memberID, address: event.actor.address),
            memberId: event.entry.memberID, subjectType: event.entry.subjectType, subject: event.entry.subject
        )
    }
}
