import FamilySyncCore
import FamilySyncProtocol
import Foundation

// The hot paths' bodies read in one pass (`OnePassJSON`). Each reads the members of its type's
// `CodingKeys` and no other: the switch over them is exhaustive, so a member added to the type
// and not read here does not build.

extension HealthReportRequest: OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss) {
        var heartbeatAt: Date?, monitoringActive: Bool?, memoryUsageMB: Double?, notificationSequence: Int64?
        var errors: [ExtensionErrorBody]?
        var appVersion: String?, osVersion: String?
        try reader.members(of: CodingKeys.self) { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case .heartbeatAt: heartbeatAt = try reader.date()
            case .monitoringActive: monitoringActive = try reader.bool()
            case .memoryUsageMB: memoryUsageMB = try reader.double()
            case .notificationSequence: notificationSequence = try reader.int64()
            case .errors: errors = try reader.list()
            case .appVersion: appVersion = try reader.string()
            case .osVersion: osVersion = try reader.string()
            }
        }
        self.init(
            heartbeatAt: try heartbeatAt.required(), monitoringActive: try monitoringActive.required(), memoryUsageMB: memoryUsageMB,
            notificationSequence: notificationSequence, errors: errors, appVersion: appVersion, osVersion: osVersion
        )
    }
}

extension ExtensionErrorBody: OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss) {
        var id: UUID?, timestamp: Date?, eventName: String?, action: String?, success: Bool?, errorDescription: String?, memoryUsageMB: Double?
        try reader.members(of: CodingKeys.self) { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case .id: id = try reader.uuid()
            case .timestamp: timestamp = try reader.date()
            case .eventName: eventName = try reader.string()
            case .action: action = try reader.string()
            case .success: success = try reader.bool()
            // These two take null (the server lists an entry with them so).
            case .errorDescription: errorDescription = try reader.null() ? nil : try reader.string()
            case .memoryUsageMB: memoryUsageMB = try reader.null() ? nil : try reader.double()
            }
        }
        self.init(
            id: try id.required(), timestamp: try timestamp.required(), eventName: try eventName.required(), action: try action.required(),
            success: try success.required(), errorDescription: errorDescription, memoryUsageMB: memoryUsageMB
        )
    }
}

extension UsageUploadRequest: OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss) {
        var timeZone: String?, records: [UsageRecordBody]?
        try reader.members(of: CodingKeys.self) { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case .timeZone: timeZone = try reader.string()
            case .records: records = try reader.list()
            }
        }
        self.init(timeZone: timeZone, records: try records.required())
    }
}

extension UsageRecordBody: OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss) {
        var recordID: String?, logicalID: String?, displayName: String?, bundleIdentifier: String?, category: String?
        var sessionStart: Date?, sessionEnd: Date?, totalSeconds: Int?, earnedPoints: Int?, deviceID: String?, pickups: Int?
        try reader.members(of: CodingKeys.self) { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case .recordID: recordID = try reader.string()
            case .logicalID: logicalID = try reader.string()
            case .displayName: displayName = try reader.string()
            case .bundleIdentifier: bundleIdentifier = try reader.string()
            case .category: category = try reader.string()
            case .sessionStart: sessionStart = try reader.date()
            case .sessionEnd: sessionEnd = try reader.date()
            case .totalSeconds: totalSeconds = try reader.int()
            case .earnedPoints: earnedPoints = try reader.int()
            case .deviceID: deviceID = try reader.string()
            case .pickups: pickups = try reader.int()
            }
        }
        self.init(
            recordID: try recordID.required(), logicalID: try logicalID.required(), displayName: try displayName.required(),
            bundleIdentifier: bundleIdentifier, category: category, sessionStart: try sessionStart.required(), sessionEnd: try sessionEnd.required(),
            totalSeconds: try totalSeconds.required(), earnedPoints: earnedPoints, deviceID: deviceID, pickups: pickups
        )
    }
}

extension UsageTotalsRequest: OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss) {
        var timeZone: String?, date: String?, apps: [UsageTotalBody]?
        try reader.members(of: CodingKeys.self) { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case .timeZone: timeZone = try reader.string()
            case .date: date = try reader.string()
            case .apps: apps = try reader.list()
            }
        }
        self.init(timeZone: timeZone, date: try date.required(), apps: try apps.required())
    }
}

extension UsageTotalBody: OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss) {
        var logicalID: String?, displayName: String?, bundleIdentifier: String?, category: String?
        var totalSeconds: Int?, pickups: Int?, earnedPoints: Int?
        try reader.members(of: CodingKeys.self) { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case .logicalID: logicalID = try reader.string()
            case .displayName: displayName = try reader.string()
            case .bundleIdentifier: bundleIdentifier = try reader.string()
            case .category: category = try reader.string()
            case .totalSeconds: totalSeconds = try reader.int()
            case .pickups: pickups = try reader.int()
            case .earnedPoints: earnedPoints = try reader.int()
            }
        }
        self.init(
            logicalID: try logicalID.required(), displayName: try displayName.required(), bundleIdentifier: bundleIdentifier, category: category,
            totalSeconds: try totalSeconds.required(), pickups: pickups, earnedPoints: earnedPoints
        )
    }
}

extension ModifyRecordsRequest: OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss) {
        var operations: [RecordOperation]?, atomic: Bool?
        try reader.members(of: CodingKeys.self) { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case .operations: operations = try reader.list()
            case .atomic: atomic = try reader.bool()
            }
        }
        self.init(operations: try operations.required(), atomic: atomic)
    }
}

extension RecordOperation: OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss) {
        var operationType: RecordOperationType?, record: RecordInput?
        try reader.members(of: CodingKeys.self) { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case .operationType:
                guard let value = RecordOperationType(rawValue: try reader.string()) else { throw OnePassJSON.Miss() }
                operationType = value
            case .record: record = try RecordInput(onePass: &reader)
            }
        }
        self.init(operationType: try operationType.required(), record: try record.required())
    }
}

extension RecordInput: OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss) {
        var recordName: String?, recordType: String?, fields: [String: JSONValue]?, recordChangeTag: String?, clientModifiedAt: Date?
        try reader.members(of: CodingKeys.self) { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case .recordName: recordName = try reader.string()
            case .recordType: recordType = try reader.string()
            case .fields: fields = try reader.freeObject()
            case .recordChangeTag: recordChangeTag = try reader.string()
            case .clientModifiedAt: clientModifiedAt = try reader.date()
            }
        }
        self.init(
            recordName: try recordName.required(), recordType: recordType, fields: fields, recordChangeTag: recordChangeTag, clientModifiedAt: clientModifiedAt
        )
    }
}
