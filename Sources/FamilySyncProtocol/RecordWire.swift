import FamilySyncCore
import Foundation

/// A record on the wire (PROTOCOL §5.1), with `outcome` and `resolution` in modify results.
public struct RecordBody: Codable, Sendable, Equatable {
    public struct Created: Codable, Sendable, Equatable {
        public var timestamp: Date
        public var deviceId: String

        package enum CodingKeys: CodingKey, CaseIterable { case deviceId, timestamp }
    }

    public struct Modified: Codable, Sendable, Equatable {
        public var timestamp: Date
        public var deviceId: String
        public var role: String

        package enum CodingKeys: CodingKey, CaseIterable { case deviceId, role, timestamp }
    }

    public var recordName: String
    public var recordType: String
    public var fields: [String: JSONValue]?
    public var recordChangeTag: String?
    public var deleted: Bool?
    public var created: Created?
    public var modified: Modified?
    public var clientModifiedAt: Date?
    /// `created`, `updated` or `deleted`, on a modify result.
    public var outcome: String?
    /// `incomingWon`, when a stale write won its conflict.
    public var resolution: String?

    /// In the order the encoder sorts them, as the server writes them too (`WireJSONWritable`).
    package enum CodingKeys: CodingKey, CaseIterable {
        case clientModifiedAt, created, deleted, fields, modified, outcome, recordChangeTag, recordName, recordType, resolution
    }

    public init(_ record: Record, outcome: String? = nil, resolution: String? = nil) {
        recordName = record.recordName
        recordType = record.recordType
        fields = record.fields
        recordChangeTag = record.changeTag
        deleted = record.deleted
        created = Created(timestamp: record.createdAt, deviceId: record.createdBy.lowercased)
        modified = Modified(timestamp: record.modifiedAt, deviceId: record.modifiedBy.lowercased, role: record.modifiedRole.rawValue)
        clientModifiedAt = record.clientModifiedAt
        self.outcome = outcome
        self.resolution = resolution
    }

    /// A deletion in a change feed: `{recordName, recordType, deleted: true}`.
    public init(deletedName: String, recordType: String) {
        recordName = deletedName
        self.recordType = recordType
        deleted = true
    }
}

/// What a client sends as a record in `records/modify`.
public struct RecordInput: Codable, Sendable, Equatable {
    public var recordName: String
    public var recordType: String?
    public var fields: [String: JSONValue]?
    public var recordChangeTag: String?
    public var clientModifiedAt: Date?

    package enum CodingKeys: CodingKey, CaseIterable { case recordName, recordType, fields, recordChangeTag, clientModifiedAt }

    public init(recordName: String, recordType: String? = nil, fields: [String: JSONValue]? = nil, recordChangeTag: String? = nil, clientModifiedAt: Date? = nil) {
        self.recordName = recordName
        self.recordType = recordType
        self.fields = fields
        self.recordChangeTag = recordChangeTag
        self.clientModifiedAt = clientModifiedAt
    }
}

public struct RecordOperation: Codable, Sendable, Equatable {
    public var operationType: RecordOperationType
    public var record: RecordInput

    package enum CodingKeys: CodingKey, CaseIterable { case operationType, record }
    public init(operationType: RecordOperationType, record: RecordInput) {
        self.operationType = operationType
        self.record = record
    }
}

public struct ModifyRecordsRequest: Codable, Sendable, Equatable {
    public var operations: [RecordOperation]
    public var atomic: Bool?

    package enum CodingKeys: CodingKey, CaseIterable { case operations, atomic }
    public init(operations: [RecordOperation], atomic: Bool? = nil) {
        self.operations = operations
        self.atomic = atomic
    }
}

/// One entry of a modify or lookup answer: a record, or `{recordName, error, serverRecord?}`.
public struct RecordResult: Codable, Sendable, Equatable {
    public var record: RecordBody?
    public var recordName: String
    public var error: ErrorResponse.Body?
    public var serverRecord: RecordBody?

    public init(record: RecordBody) {
        self.record = record
        self.recordName = record.recordName
    }

    public init(recordName: String, error: FamilySyncError, serverRecord: RecordBody? = nil) {
        self.recordName = recordName
        self.error = ErrorResponse(error).error
        self.serverRecord = serverRecord
    }

    // A saved record is the record itself; a failure is the error object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        recordName = try container.decode(String.self, forKey: .recordName)
        error = try container.decodeIfPresent(ErrorResponse.Body.self, forKey: .error)
        serverRecord = try container.decodeIfPresent(RecordBody.self, forKey: .serverRecord)
        record = error == nil ? try RecordBody(from: decoder) : nil
    }

    public func encode(to encoder: any Encoder) throws {
        if let record {
            try record.encode(to: encoder)
            return
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(recordName, forKey: .recordName)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encodeIfPresent(serverRecord, forKey: .serverRecord)
    }

    package enum CodingKeys: CodingKey, CaseIterable { case error, recordName, serverRecord }
}

public struct ModifyRecordsResponse: Codable, Sendable, Equatable {
    public var records: [RecordResult]
    public var changeToken: String

    package enum CodingKeys: CodingKey, CaseIterable { case changeToken, records }

    public init(records: [RecordResult], changeToken: String) {
        self.records = records
        self.changeToken = changeToken
    }
}

public struct LookupRecordsRequest: Codable, Sendable, Equatable {
    public var recordNames: [String]
    public init(recordNames: [String]) { self.recordNames = recordNames }
}

public struct LookupRecordsResponse: Codable, Sendable, Equatable {
    public var records: [RecordResult]
    public init(records: [RecordResult]) { self.records = records }
}

/// `GET /v1/zones/{zone}/changes`, in either format (PROTOCOL §5.5): a compact page is read into
/// the same records the full one would have given.
public struct ZoneChangesResponse: Codable, Sendable, Equatable {
    public var records: [RecordBody]
    public var changeToken: String
    public var moreComing: Bool
    public init(records: [RecordBody], changeToken: String, moreComing: Bool) {
        self.records = records
        self.changeToken = changeToken
        self.moreComing = moreComing
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        changeToken = try container.decode(String.self, forKey: .changeToken)
        moreComing = try container.decode(Bool.self, forKey: .moreComing)
        if let devices = try container.decodeIfPresent([String].self, forKey: .devices) {
            var compact = try container.nestedUnkeyedContainer(forKey: .records)
            var records: [RecordBody] = []
            records.reserveCapacity(compact.count ?? 0)
            while !compact.isAtEnd {
                records.append(try compact.decode(CompactRecord.self).record(devices: devices, in: compact))
            }
            self.records = records
        } else {
            records = try container.decode([RecordBody].self, forKey: .records)
        }
    }

    /// Always the full format.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(changeToken, forKey: .changeToken)
        try container.encode(moreComing, forKey: .moreComing)
        try container.encode(records, forKey: .records)
    }

    enum CodingKeys: String, CodingKey { case changeToken, devices, moreComing, records }
}

/// How a page of changes is written (PROTOCOL §5.5): `full`, each record as §5.1 shows it, or
/// `compact`, what records share said once a page (the devices) or left out when it can be told
/// from the rest (a creation that was the last change, a client's instant equal to the server's).
public enum ChangesFormat: String, Codable, Sendable, CaseIterable {
    case full, compact
}

/// A record of a compact page: instants as milliseconds since the epoch, devices as their index
/// in the page's `devices`.
struct CompactRecord: Decodable {
    /// `[instant, device]`, and for `modified` the writer's role after them.
    struct Stamp: Decodable {
        var milliseconds: Int64
        var device: Int
        var role: String?

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            milliseconds = try container.decode(Int64.self)
            device = try container.decode(Int.self)
            role = container.isAtEnd ? nil : try container.decode(String.self)
        }
    }

    var recordName: String
    var recordType: String
    var fields: [String: JSONValue]?
    var recordChangeTag: String?
    var deleted: Bool?
    var created: Stamp?
    var modified: Stamp?
    var clientModifiedAt: Int64?

    /// The record as the full format says it; a device index outside the page is corrupt data.
    func record(devices: [String], in container: some UnkeyedDecodingContainer) throws -> RecordBody {
        if deleted == true { return RecordBody(deletedName: recordName, recordType: recordType) }
        guard let modified, let role = modified.role else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "record '\(recordName)' has no modified stamp with a role")
        }
        func device(_ index: Int) throws -> String {
            guard devices.indices.contains(index) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "record '\(recordName)' names device \(index) of \(devices.count)")
            }
            return devices[index]
        }
        var record = RecordBody(deletedName: recordName, recordType: recordType)
        record.deleted = false
        record.fields = fields
        record.recordChangeTag = recordChangeTag
        let created = created ?? modified
        record.created = .init(timestamp: Instant.date(milliseconds: created.milliseconds), deviceId: try device(created.device))
        record.modified = .init(timestamp: Instant.date(milliseconds: modified.milliseconds), deviceId: try device(modified.device), role: role)
        record.clientModifiedAt = Instant.date(milliseconds: clientModifiedAt ?? modified.milliseconds)
        return record
    }
}

/// `GET /v1/changes`.
public struct DatabaseChangesResponse: Codable, Sendable, Equatable {
    public struct Zone: Codable, Sendable, Equatable {
        public var zoneName: String
        public var changeToken: String
        public init(zoneName: String, changeToken: String) {
            self.zoneName = zoneName
            self.changeToken = changeToken
        }
    }
    public var zones: [Zone]
    public var deletedZones: [String]
    public var changeToken: String
    public var moreComing: Bool
    public init(zones: [Zone], deletedZones: [String], changeToken: String, moreComing: Bool) {
        self.zones = zones
        self.deletedZones = deletedZones
        self.changeToken = changeToken
        self.moreComing = moreComing
    }
}

public struct ZoneBody: Codable, Sendable, Equatable {
    public var zoneName: String
    public var scope: String
    public var childDeviceId: String?
    public var changeToken: String
    public init(zoneName: String, scope: String, childDeviceId: String?, changeToken: String) {
        self.zoneName = zoneName
        self.scope = scope
        self.childDeviceId = childDeviceId
        self.changeToken = changeToken
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(zoneName, forKey: .zoneName)
        try container.encode(scope, forKey: .scope)
        try container.encode(childDeviceId, forKey: .childDeviceId)
        try container.encode(changeToken, forKey: .changeToken)
    }
}

public struct ZoneList: Codable, Sendable, Equatable {
    public var zones: [ZoneBody]
    public init(zones: [ZoneBody]) { self.zones = zones }
}

public struct CreateZoneRequest: Codable, Sendable, Equatable {
    public var zoneName: String
    public init(zoneName: String) { self.zoneName = zoneName }
}

/// `POST /v1/zones/{zone}/records/query` (PROTOCOL §5.3).
public struct QueryRecordsRequest: Codable, Sendable, Equatable {
    public enum Comparator: String, Codable, Sendable, CaseIterable {
        case equals = "EQUALS", notEquals = "NOT_EQUALS", lessThan = "LESS_THAN", greaterThan = "GREATER_THAN", `in` = "IN"
    }

    public struct Filter: Codable, Sendable, Equatable {
        public var fieldName: String
        public var comparator: Comparator
        public var value: JSONValue
        public init(fieldName: String, comparator: Comparator, value: JSONValue) {
            self.fieldName = fieldName
            self.comparator = comparator
            self.value = value
        }
    }

    public struct Sort: Codable, Sendable, Equatable {
        public var fieldName: String
        public var ascending: Bool?
        public init(fieldName: String, ascending: Bool? = nil) {
            self.fieldName = fieldName
            self.ascending = ascending
        }
    }

    public var recordType: String
    public var filterBy: [Filter]?
    public var sortBy: [Sort]?
    public var resultsLimit: Int?
    public var continuationMarker: String?

    public init(recordType: String, filterBy: [Filter]? = nil, sortBy: [Sort]? = nil, resultsLimit: Int? = nil, continuationMarker: String? = nil) {
        self.recordType = recordType
        self.filterBy = filterBy
        self.sortBy = sortBy
        self.resultsLimit = resultsLimit
        self.continuationMarker = continuationMarker
    }
}

public struct QueryRecordsResponse: Codable, Sendable, Equatable {
    public var records: [RecordBody]
    public var continuationMarker: String?
    public init(records: [RecordBody], continuationMarker: String?) {
        self.records = records
        self.continuationMarker = continuationMarker
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(records, forKey: .records)
        try container.encode(continuationMarker, forKey: .continuationMarker)
    }
}
