import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `/v1/zones` (PROTOCOL §4) and the change feeds `/v1/zones/{zone}/changes`, `/v1/changes/zones`,
/// `/v1/changes` (§5.5).
package struct ZoneController {
    let zones: PostgresZoneStore
    let reads: PostgresRecordReads
    let devices: PostgresDeviceStore
    let keyring: ChangeTokenKeyring

    package init(zones: PostgresZoneStore, reads: PostgresRecordReads, devices: PostgresDeviceStore, keyring: ChangeTokenKeyring) {
        self.zones = zones
        self.reads = reads
        self.devices = devices
        self.keyring = keyring
    }

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.get("zones", use: list)
            .post("zones", use: create)
            .delete("zones/:zone", use: delete)
            .get("zones/:zone/changes", use: zoneChanges)
            .post("changes/zones", use: multiZoneChanges)
            .get("changes", use: databaseChanges)
    }

    /// `GET /v1/zones`: the zones the caller sees, each with its current token.
    @Sendable func list(_ request: Request, context: FamilySyncRequestContext) async throws -> ZoneList {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .readZones)
        let access = ZoneAccess(caller)
        let visible = try await zones.zones(for: access)
        return ZoneList(zones: try visible.map { zone in
            ZoneBody(
                zoneName: zone.name, scope: (access.isParent ? ZoneScope.private : .shared).rawValue, childDeviceId: zone.childDeviceID?.lowercased,
                changeToken: try keyring.encode(ChangeToken(of: zone, for: caller, at: zone.changedSequence))
            )
        })
    }

    /// `POST /v1/zones`: a parent's own zone.
    @Sendable func create(_ request: Request, context: FamilySyncRequestContext) async throws -> EditedResponse<ZoneBody> {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .manageZones)
        let body = try await request.decode(as: CreateZoneRequest.self, context: context)
        try RecordNames.checkZoneName(body.zoneName, field: "zoneName")
        try Zone.checkNewName(body.zoneName, field: "zoneName")
        let zone = try await zones.createZone(familyID: caller.familyID, name: body.zoneName, as: context.writer)
        let token = try keyring.encode(ChangeToken(of: zone, for: caller, at: zone.changedSequence))
        return EditedResponse(status: .created, response: ZoneBody(zoneName: zone.name, scope: ZoneScope.private.rawValue, childDeviceId: nil, changeToken: token))
    }

    /// `DELETE /v1/zones/{zone}`: a zone and its records (not the family zone, nor an active child's).
    @Sendable func delete(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .manageZones)
        let name = try context.pathZoneName()
        try await zones.deleteZone(familyID: caller.familyID, name: name, as: context.writer)
        return Response(status: .noContent)
    }

    /// `GET /v1/zones/{zone}/changes[?since=&limit=]`: a page of the zone's changes.
    @Sendable func zoneChanges(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .readZones)
        let name = try context.pathZoneName()
        let query = request.uri.queryParameters
        let asked = try query.get("since").map { text throws(FamilySyncError) in (token: try keyring.decode(text, for: caller), text: text) }
        let (limit, format) = (try query.pageLimit(), try query.changesFormat())
        let changes = try await reads.zoneChanges(access: ZoneAccess(caller), zoneName: name, since: asked?.token, limit: limit)
        try await devices.markSynced(familyID: caller.familyID, deviceID: caller.deviceID)
        var body = ChangesPageJSON(capacity: ChangesPageJSON.capacity(of: [changes]))
        body.writePage(changes, changeToken: try pageToken(of: changes, for: caller, asked: asked), format: format)
        return body.response()
    }

    /// `POST /v1/changes/zones`: a page of each zone asked, in one snapshot. A body at fault fails
    /// whole; a zone the caller may not see, or a token of it that is wrong or expired, is that
    /// zone's `{zoneName, error}` and the others are answered.
    @Sendable func multiZoneChanges(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .readZones)
        let body = try await request.decode(as: MultiZoneChangesRequest.self, context: context)
        let limit = try Self.checkZones(of: body)
        // A token is checked where the single-zone fetch checks it, before the zone is looked up,
        // so that a zone hidden from the caller answers as one that does not exist.
        let tokens = body.zones.map { zone in
            Result { () throws(FamilySyncError) in try zone.since.map { text throws(FamilySyncError) in try keyring.decode(text, for: caller) } }
        }
        let readable = zip(body.zones, tokens).compactMap { zone, token -> (zoneName: String, since: ChangeToken?)? in
            guard case .success(let since) = token else { return nil }
            return (zone.zoneName, since)
        }
        let read = try await reads.zoneChanges(access: ZoneAccess(caller), zones: readable, limit: limit, total: Limits.maximumRecordsPerZonesFetch)
        var pages = read.makeIterator()
        var answer = ChangesPageJSON(capacity: ChangesPageJSON.capacity(of: read.compactMap { try? $0.get() }))
        answer.writeStatic(#"{"zones":["#)
        var anyPage = false
        for (index, (zone, token)) in zip(body.zones, tokens).enumerated() {
            if index > 0 { answer.writeStatic(",") }
            switch token.flatMap({ _ in pages.next() ?? .failure(.internalError) }) {
            case .success(let changes):
                answer.writePage(changes, changeToken: try pageToken(of: changes, for: caller), zoneName: zone.zoneName, format: body.format ?? .full)
                anyPage = true
            case .failure(let failure):
                try answer.writeFailure(failure.inRequest(at: "zones[\(index)]"), zoneName: zone.zoneName)
            }
        }
        answer.writeStatic("]}")
        // A fetch that read no zone fetched nothing: the device's last sync stays as it was.
        if anyPage {
            try await devices.markSynced(familyID: caller.familyID, deviceID: caller.deviceID)
        }
        return answer.response()
    }

    /// The body's zones (1 to 50, each named once, each name valid) and its `limit`.
    static func checkZones(of body: MultiZoneChangesRequest) throws(FamilySyncError) -> Int {
        guard !body.zones.isEmpty else { throw .badRequest("Name at least one zone.", field: "zones") }
        guard body.zones.count <= Limits.maximumZonesPerFetch else {
            throw .limitExceeded("At most \(Limits.maximumZonesPerFetch) zones a request; this has \(body.zones.count).", field: "zones")
        }
        var seen = Set<String>()
        for (index, zone) in body.zones.enumerated() {
            try RecordNames.checkZoneName(zone.zoneName, field: "zones[\(index)].zoneName")
            guard seen.insert(zone.zoneName).inserted else {
                throw .badRequest("Each zone at most once in a request.", field: "zones[\(index)].zoneName")
            }
        }
        let limit = body.limit ?? Limits.defaultPageSize
        guard Limits.pageSizes.contains(limit) else {
            throw .badRequest("limit must be a whole number from \(Limits.pageSizes.lowerBound) to \(Limits.pageSizes.upperBound).", field: "limit")
        }
        return limit
    }

    /// The signed token a zone's page ends with. When nothing moved it is the token asked with,
    /// whose text is handed back as it came: the encoding is one text a token (`ChangeToken`), and
    /// signing it again was 2.6 % of a nothing-new fetch's CPU.
    func pageToken(
        of changes: ZoneChangePage<FeedRecord<ByteBuffer>>, for caller: AuthenticatedDevice, asked: (token: ChangeToken, text: String)? = nil
    ) throws(FamilySyncError) -> String {
        let token = ChangeToken(of: changes.zone, for: caller, at: changes.sequence)
        if let asked, asked.token == token { return asked.text }
        return try keyring.encode(token)
    }

    /// `GET /v1/changes[?since=&limit=]`: the zones that changed, and those deleted.
    @Sendable func databaseChanges(_ request: Request, context: FamilySyncRequestContext) async throws -> DatabaseChangesResponse {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .readDatabaseChanges)
        let since = try keyring.decodeDatabase(request.uri.queryParameters.get("since"), for: caller)
        let changes = try await reads.databaseChanges(access: ZoneAccess(caller), since: since, limit: try request.pageLimit())
        try await devices.markSynced(familyID: caller.familyID, deviceID: caller.deviceID)
        return DatabaseChangesResponse(
            zones: try changes.zones.filter { !$0.deleted }.map { zone in
                .init(zoneName: zone.name, changeToken: try keyring.encode(ChangeToken(of: zone, for: caller, at: zone.changedSequence)))
            },
            deletedZones: changes.zones.filter(\.deleted).map(\.name),
            changeToken: try keyring.encode(ChangeToken(database: caller, at: changes.sequence)),
            moreComing: changes.moreComing
        )
    }
}

extension FamilySyncError {
    /// The error of one entry of a request's list, its `field` a path within the body
    /// (`zones[2].since`), as the per-record errors of §5.3 name theirs.
    fileprivate func inRequest(at path: String) -> FamilySyncError {
        var error = self
        error.field = field.map { "\(path).\($0)" }
        return error
    }
}
