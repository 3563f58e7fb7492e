import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `/v1/zones/{zone}/records/modify` and `…/lookup` (PROTOCOL §5.3).
package struct RecordController {
    let writes: PostgresRecordWrites
    let reads: PostgresRecordReads
    let keyring: ChangeTokenKeyring

    package init(writes: PostgresRecordWrites, reads: PostgresRecordReads, keyring: ChangeTokenKeyring) {
        self.writes = writes
        self.reads = reads
        self.keyring = keyring
    }


    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.post("zones/:zone/records/modify", use: modify)
            .post("zones/:zone/records/query", use: query)
            .post("zones/:zone/records/lookup", use: lookup)
    }

    /// `POST /v1/zones/{zone}/records/modify`: writes, each decided by §5.3–§5.4, atomically or each alone.
    @Sendable func modify(_ request: Request, context: FamilySyncRequestContext) async throws -> ModifyRecordsResponse {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .writeRecords)
        let zoneName = try context.pathZoneName()
        let body = try await request.decode(as: ModifyRecordsRequest.self, context: context)
        guard !body.operations.isEmpty else { throw FamilySyncError.badRequest("Send at least one operation.", field: "operations") }
        guard body.operations.count <= Limits.maximumOperations else {
            throw FamilySyncError.limitExceeded("At most \(Limits.maximumOperations) operations a request; this has \(body.operations.count).", field: "operations")
        }
        var seen = Set<String>()
        let operations = try body.operations.enumerated().map { index, operation throws(FamilySyncError) in
            let path = "operations[\(index)]"
            try RecordNames.checkRecordName(operation.record.recordName, field: "\(path).record.recordName")
            guard seen.insert(operation.record.recordName).inserted else {
                throw FamilySyncError.badRequest("At most one operation per record in a request.", field: "\(path).record.recordName")
            }
            return RecordWrite(
                type: operation.operationType, recordName: operation.record.recordName, recordType: operation.record.recordType,
                fields: operation.record.fields, changeTag: operation.record.recordChangeTag,
                clientModifiedAt: operation.record.clientModifiedAt, path: path
            )
        }
        let outcome = try await writes.modify(
            access: ZoneAccess(caller), zoneName: zoneName, operations: operations, atomic: body.atomic ?? true, records: ItemPath { "operations[\($0)].record" },
            as: context.writer
        )
        let results = outcome.results.map { result in
            switch result {
            case .saved(let record, let outcome, let incomingWon):
                RecordResult(record: RecordBody(record, outcome: outcome.rawValue, resolution: incomingWon ? WriteResolution.incomingWon.rawValue : nil))
            case .failed(let name, let error, let server):
                RecordResult(recordName: name, error: error, serverRecord: server.map { RecordBody($0) })
            }
        }
        let token = ChangeToken(of: outcome.zone, for: caller, at: outcome.sequence)
        return ModifyRecordsResponse(records: results, changeToken: try keyring.encode(token))
    }

    /// `POST /v1/zones/{zone}/records/query`: live records of a type, filtered and sorted, a page at a time.
    @Sendable func query(_ request: Request, context: FamilySyncRequestContext) async throws -> QueryRecordsResponse {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .readZones)
        let zoneName = try context.pathZoneName()
        let body = try await request.decode(as: QueryRecordsRequest.self, context: context)
        let query = try RecordQuery(
            recordType: body.recordType,
            filters: (body.filterBy ?? []).map { .init(fieldName: $0.fieldName, comparator: .init($0.comparator), value: $0.value) },
            sorts: (body.sortBy ?? []).map { ($0.fieldName, $0.ascending ?? true) },
            resultsLimit: body.resultsLimit, continuationMarker: body.continuationMarker
        )
        let (found, next) = try await reads.query(access: ZoneAccess(caller), zoneName: zoneName, query)
        // The marker is where the page ended (the last record's sort keys and name); opaque to clients.
        let marker = try next.map { try $0.marker }
        return QueryRecordsResponse(records: found.map { RecordBody($0) }, continuationMarker: marker)
    }

    /// `POST /v1/zones/{zone}/records/lookup`: records by name.
    @Sendable func lookup(_ request: Request, context: FamilySyncRequestContext) async throws -> LookupRecordsResponse {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .readZones)
        let zoneName = try context.pathZoneName()
        let body = try await request.decode(as: LookupRecordsRequest.self, context: context)
        guard body.recordNames.count <= Limits.maximumOperations else {
            throw FamilySyncError.limitExceeded("At most \(Limits.maximumOperations) records a lookup.", field: "recordNames")
        }
        for (index, name) in body.recordNames.enumerated() {
            try RecordNames.checkRecordName(name, field: "recordNames[\(index)]")
        }
        let found = try await reads.lookup(access: ZoneAccess(caller), zoneName: zoneName, names: body.recordNames)
        return LookupRecordsResponse(records: zip(body.recordNames, found).map { name, record in
            record.map { RecordResult(record: RecordBody($0)) }
                ?? RecordResult(recordName: name, error: .notFound("No record named '\(name)'."))
        })
    }
}

extension RecordQuery.Comparator {
    init(_ comparator: QueryRecordsRequest.Comparator) {
        switch comparator {
        case .equals: self = .equals
        case .notEquals: self = .notEquals
        case .lessThan: self = .lessThan
        case .greaterThan: self = .greaterThan
        case .in: self = .in
        }
    }
}
