import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// A family's data rights (PROTOCOL §15): its retention, and its audit log. Parents only.
extension FamilySyncClient {
    /// §15.1: every kind's days as applied, the operator's maximum, the kinds the family set.
    public func retention() async throws(FamilySyncError) -> RetentionBody {
        try await send(.GET, "/v1/families/me/retention", as: RetentionBody.self)
    }

    /// §15.1: keeps each kind given that many days; the kinds left out are kept the maximum.
    public func setRetention(_ days: [RetentionKind: Int]) async throws(FamilySyncError) -> RetentionBody {
        let request = SetRetentionRequest(days: Dictionary(uniqueKeysWithValues: days.map { ($0.key.rawValue, $0.value) }))
        return try await send(.PUT, "/v1/families/me/retention", body: request, as: RetentionBody.self)
    }

    /// §15.4: a page of the audit log, newest first; `cursor` from the previous page; with
    /// `member`, only what concerns that member.
    public func auditEvents(member: UUID? = nil, cursor: String? = nil, limit: Int? = nil) async throws(FamilySyncError) -> AuditPage {
        try await send(.GET, "/v1/audit", query: [("member", member?.lowercased), ("cursor", cursor), ("limit", limit.map(String.init))], as: AuditPage.self)
    }

    /// §15.4: parents' reads of the days `from`…`to` (UTC), counted per day, member and route.
    public func auditReads(from: String, to: String) async throws(FamilySyncError) -> [AuditReadsBody] {
        try await send(.GET, "/v1/audit/reads", query: [("from", from), ("to", to)], as: AuditReadsList.self).days
    }
}
