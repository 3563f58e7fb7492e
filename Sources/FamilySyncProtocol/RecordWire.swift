import FamilySyncCore
import Foundation

/// A record on the wire (PROTOCOL §5.1), with `outcome` and `resolution` in modify results.
public struct RecordBody: Codable, Sendable, Equatable {
    public struct Created: Codable, Sendable, Equatable {
        public var timestamp: Date
        public var deviceId: String
    }

    public struct Modified: Codable, Sendable, Equatable {
        public var timestamp: Date
        public var deviceId: String
        public var role: String
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
    public init(operationType: RecordOperationType, record: RecordInput) {
        self.operationType = operationType
        self.record = record
    }
}

public struct ModifyRecordsRequest: Codable, Sendable, Equatable {
    public var operations: [RecordOperation]
    public var atomic: Bool?
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

    enum CodingKeys: String, CodingKey { case recordName, error, serverRecord }
}

public struct ModifyRecordsResponse: Codable, Sendable, Equatable {
    public var records: [RecordResult]
    public var changeToken: String
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

/// `GET /v1/zones/{zone}/changes`.
public struct ZoneChangesResponse: Codable, Sendable, Equatable {
    public var records: [RecordBody]
    public var changeToken: String
    public var moreComing: Bool
    public init(records: [RecordBody], changeToken: String, moreComing: Bool) {
        self.records = records
        self.changeToken = changeToken
        self.moreComing = moreComing
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
