import FamilySyncCore
import FamilySyncProtocol
import Foundation

// The calls of zones, records and changes: §4–§6.

extension FamilySyncClient {
    // MARK: Zones, records, changes (§4–§5)

    public func zones() async throws(FamilySyncError) -> [ZoneBody] {
        try await send(.GET, "/v1/zones", as: ZoneList.self).zones
    }

    public func createZone(_ name: String) async throws(FamilySyncError) -> ZoneBody {
        try await send(.POST, "/v1/zones", body: CreateZoneRequest(zoneName: name), as: ZoneBody.self)
    }

    public func deleteZone(_ name: String) async throws(FamilySyncError) {
        _ = try await send(.DELETE, "/v1/zones/\(name)", as: EmptyResponse.self)
    }

    /// `idempotencyKey` (§1.2.1): the same key sent again with the same request gets the first
    /// answer again, so an answer lost on the way may be asked for again safely.
    public func modify(_ zone: String, _ request: ModifyRecordsRequest, idempotencyKey: String? = nil) async throws(FamilySyncError) -> ModifyRecordsResponse {
        // Forced saves and deletes end in the same state however often they arrive.
        try await send(
            .POST, "/v1/zones/\(zone)/records/modify", body: request,
            replayable: request.operations.allSatisfy { [.forceReplace, .forceUpdate, .forceDelete].contains($0.operationType) }, idempotencyKey: idempotencyKey,
            as: ModifyRecordsResponse.self
        )
    }

    public func lookup(_ zone: String, names: [String]) async throws(FamilySyncError) -> LookupRecordsResponse {
        try await send(.POST, "/v1/zones/\(zone)/records/lookup", body: LookupRecordsRequest(recordNames: names), replayable: true, as: LookupRecordsResponse.self)
    }

    public func query(_ zone: String, _ request: QueryRecordsRequest) async throws(FamilySyncError) -> QueryRecordsResponse {
        try await send(.POST, "/v1/zones/\(zone)/records/query", body: request, replayable: true, as: QueryRecordsResponse.self)
    }

    /// `GET /v1/zones/{zone}/changes`: one page after `since` (nil: from the start). The page comes
    /// compact (PROTOCOL §5.5) unless `format` says otherwise: the same records in about 40 % fewer
    /// bytes to inflate and decode.
    public func zoneChanges(_ zone: String, since: String?, limit: Int? = nil, format: ChangesFormat = .compact) async throws(FamilySyncError) -> ZoneChangesResponse {
        try await send(
            .GET, "/v1/zones/\(zone)/changes", query: [("since", since), ("limit", limit.map(String.init)), ("format", format == .full ? nil : format.rawValue)],
            as: ZoneChangesResponse.self
        )
    }

    /// `POST /v1/changes/zones`: a page of each zone (at most 50), after the token given with it
    /// (nil: from the start), in one round trip. `limit` is per zone; the whole answer holds at
    /// most 1000 records, so a zone may say `moreComing` before its `limit`. A zone that failed
    /// alone (not found, its token wrong or expired) is an entry whose `outcome` is that error.
    public func changes(inZones zones: [MultiZoneChangesRequest.Zone], limit: Int? = nil, format: ChangesFormat = .compact) async throws(FamilySyncError) -> [ZoneChangesResult] {
        let request = MultiZoneChangesRequest(zones: zones, limit: limit, format: format == .full ? nil : format)
        return try await send(.POST, "/v1/changes/zones", body: request, replayable: true, as: MultiZoneChangesResponse.self).zones
    }

    /// `GET /v1/changes`: the zones changed after `since`.
    public func databaseChanges(since: String?, limit: Int? = nil) async throws(FamilySyncError) -> DatabaseChangesResponse {
        try await send(.GET, "/v1/changes", query: [("since", since), ("limit", limit.map(String.init))], as: DatabaseChangesResponse.self)
    }

    /// `GET /v1/poll` (§6): held up to `timeout` seconds until something the device sees changes.
    public func poll(since: String?, timeout: Int = 30) async throws(FamilySyncError) -> PollResponse {
        try await send(.GET, "/v1/poll", query: [("since", since), ("timeout", String(timeout))], as: PollResponse.self)
    }

    /// `POST /v1/poll` (§6, §10): the same poll carrying a tracked device's heartbeat, so that a
    /// device's rhythm is one request. A refused heartbeat refuses the poll, and records nothing.
    public func poll(since: String?, timeout: Int = 30, heartbeat: HealthReportRequest) async throws(FamilySyncError) -> PollResponse {
        // Safe to send again: a heartbeat says "alive now", and the poll reads.
        try await send(.POST, "/v1/poll", query: [("since", since), ("timeout", String(timeout))], body: heartbeat, replayable: true, as: PollResponse.self)
    }
}
