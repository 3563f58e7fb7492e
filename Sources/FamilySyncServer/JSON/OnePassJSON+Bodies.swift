import FamilySyncCore
import FamilySyncProtocol
import Foundation

// The hot paths' bodies read in one pass (`OnePassJSON`): the members each reads are those its
// `DeclaresMembers` tree declares (RequestMembers.swift); any other is a miss.

extension HealthReportRequest: OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss) {
        var seen = SeenMembers()
        var heartbeatAt: Date?, monitoringActive: Bool?, memoryUsageMB: Double?, notificationSequence: Int64?
        var errors: [ExtensionErrorBody]?
        var appVersion: String?, osVersion: String?
        try reader.object { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case "heartbeatAt": try seen.mark(0); heartbeatAt = try reader.date()
            case "monitoringActive": try seen.mark(1); monitoringActive = try reader.bool()
            case "memoryUsageMB": try seen.mark(2); memoryUsageMB = try reader.double()
            case "notificationSequence": try seen.mark(3); notificationSequence = try reader.int64()
            case "errors":
                try seen.mark(4)
                var list: [ExtensionErrorBody] = []
                try reader.array { reader throws(OnePassJSON.Miss) in list.append(try ExtensionErrorBody(onePass: &reader)) }
                errors = list
            case "appVersion": try seen.mark(5); appVersion = try reader.string()
            case "osVersion": try seen.mark(6); osVersion = try reader.string()
            default: throw OnePassJSON.Miss()
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
        var seen = SeenMembers()
        var id: UUID?, timestamp: Date?, eventName: String?, action: String?, success: Bool?, errorDescription: String?, memoryUsageMB: Double?
        try reader.object { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case "id":
                try seen.mark(0)
                guard let value = UUID(uuidString: try reader.string()) else { throw OnePassJSON.Miss() }
                id = value
            case "timestamp": try seen.mark(1); timestamp = try reader.date()
            case "eventName": try seen.mark(2); eventName = try reader.string()
            case "action": try seen.mark(3); action = try reader.string()
            case "success": try seen.mark(4); success = try reader.bool()
            // These two take null (the server lists an entry with them so).
            case "errorDescription": try seen.mark(5); errorDescription = try reader.null() ? nil : try reader.string()
            case "memoryUsageMB": try seen.mark(6); memoryUsageMB = try reader.null() ? nil : try reader.double()
            default: throw OnePassJSON.Miss()
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
        var seen = SeenMembers()
        var timeZone: String?, records: [UsageRecordBody]?
        try reader.object { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case "timeZone": try seen.mark(0); timeZone = try reader.string()
            case "records":
                try seen.mark(1)
                var list: [UsageRecordBody] = []
                try reader.array { reader throws(OnePassJSON.Miss) in list.append(try UsageRecordBody(onePass: &reader)) }
                records = list
            default: throw OnePassJSON.Miss()
            }
        }
        self.init(timeZone: timeZone, records: try records.required())
    }
}

extension UsageRecordBody: OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss) {
        var seen = SeenMembers()
        var recordID: String?, logicalID: String?, displayName: String?, bundleIdentifier: String?, category: String?
        var sessionStart: Date?, sessionEnd: Date?, totalSeconds: Int?, earnedPoints: Int?, deviceID: String?, pickups: Int?
        try reader.object { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case "recordID": try seen.mark(0); recordID = try reader.string()
            case "logicalID": try seen.mark(1); logicalID = try reader.string()
            case "displayName": try seen.mark(2); displayName = try reader.string()
            case "bundleIdentifier": try seen.mark(3); bundleIdentifier = try reader.string()
            case "category": try seen.mark(4); category = try reader.string()
            case "sessionStart": try seen.mark(5); sessionStart = try reader.date()
            case "sessionEnd": try seen.mark(6); sessionEnd = try reader.date()
            case "totalSeconds": try seen.mark(7); totalSeconds = try reader.int()
            case "earnedPoints": try seen.mark(8); earnedPoints = try reader.int()
            case "deviceID": try seen.mark(9); deviceID = try reader.string()
            case "pickups": try seen.mark(10); pickups = try reader.int()
            default: throw OnePassJSON.Miss()
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
        var seen = SeenMembers()
        var timeZone: String?, date: String?, apps: [UsageTotalBody]?
        try reader.object { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case "timeZone": try seen.mark(0); timeZone = try reader.string()
            case "date": try seen.mark(1); date = try reader.string()
            case "apps":
                try seen.mark(2)
                var list: [UsageTotalBody] = []
                try reader.array { reader throws(OnePassJSON.Miss) in list.append(try UsageTotalBody(onePass: &reader)) }
                apps = list
            default: throw OnePassJSON.Miss()
            }
        }
        self.init(timeZone: timeZone, date: try date.required(), apps: try apps.required())
    }
}

extension UsageTotalBody: OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss) {
        var seen = SeenMembers()
        var logicalID: String?, displayName: String?, bundleIdentifier: String?, category: String?
        var totalSeconds: Int?, pickups: Int?, earnedPoints: Int?
        try reader.object { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case "logicalID": try seen.mark(0); logicalID = try reader.string()
            case "displayName": try seen.mark(1); displayName = try reader.string()
            case "bundleIdentifier": try seen.mark(2); bundleIdentifier = try reader.string()
            case "category": try seen.mark(3); category = try reader.string()
            case "totalSeconds": try seen.mark(4); totalSeconds = try reader.int()
            case "pickups": try seen.mark(5); pickups = try reader.int()
            case "earnedPoints": try seen.mark(6); earnedPoints = try reader.int()
            default: throw OnePassJSON.Miss()
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
        var seen = SeenMembers()
        var operations: [RecordOperation]?, atomic: Bool?
        try reader.object { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case "operations":
                try seen.mark(0)
                var list: [RecordOperation] = []
                try reader.array { reader throws(OnePassJSON.Miss) in list.append(try RecordOperation(onePass: &reader)) }
                operations = list
            case "atomic": try seen.mark(1); atomic = try reader.bool()
            default: throw OnePassJSON.Miss()
            }
        }
        self.init(operations: try operations.required(), atomic: atomic)
    }
}

extension RecordOperation: OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss) {
        var seen = SeenMembers()
        var operationType: RecordOperationType?, record: RecordInput?
        try reader.object { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case "operationType":
                try seen.mark(0)
                guard let value = RecordOperationType(rawValue: try reader.string()) else { throw OnePassJSON.Miss() }
                operationType = value
            case "record": try seen.mark(1); record = try RecordInput(onePass: &reader)
            default: throw OnePassJSON.Miss()
            }
        }
        self.init(operationType: try operationType.required(), record: try record.required())
    }
}

extension RecordInput: OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss) {
        var seen = SeenMembers()
        var recordName: String?, recordType: String?, fields: [String: JSONValue]?, recordChangeTag: String?, clientModifiedAt: Date?
        try reader.object { reader, key throws(OnePassJSON.Miss) in
            switch key {
            case "recordName": try seen.mark(0); recordName = try reader.string()
            case "recordType": try seen.mark(1); recordType = try reader.string()
            case "fields": try seen.mark(2); fields = try reader.freeObject()
            case "recordChangeTag": try seen.mark(3); recordChangeTag = try reader.string()
            case "clientModifiedAt": try seen.mark(4); clientModifiedAt = try reader.date()
            default: throw OnePassJSON.Miss()
            }
        }
        self.init(
            recordName: try recordName.required(), recordType: recordType, fields: fields, recordChangeTag: recordChangeTag, clientModifiedAt: clientModifiedAt
        )
    }
}
