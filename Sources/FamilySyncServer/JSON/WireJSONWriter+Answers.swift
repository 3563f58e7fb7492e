import FamilySyncCore
import FamilySyncProtocol
import Foundation

// The hot paths' answers written directly (`WireJSONWriter`), member by member of each type's
// `CodingKeys`: each as the type's `encode` writes it (null where it encodes a nil, left out
// where it leaves one out).

extension DeviceHealthBody: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .date: w.string(date)
            case .deviceId: w.string(deviceId.lowercased)
            case .errorsToday: w.int(errorsToday)
            case .gapMinutesToday: w.int(gapMinutesToday)
            case .gapsToday: w.array(gapsToday) { w, gap in gap.write(to: &w) }
            case .heartbeatGapSeconds: w.int(heartbeatGapSeconds)
            case .lastErrors: w.array(lastErrors) { w, error in error.write(to: &w) }
            case .lastHeartbeatAt: w.instant(lastHeartbeatAt)
            case .memoryUsageMB: w.double(memoryUsageMB)
            case .missedNotifications: w.int(missedNotifications)
            case .sequenceResets: w.int(sequenceResets)
            case .status: w.string(status)
            }
        }
    }
}

extension ExtensionErrorBody: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .action: w.string(action)
            case .errorDescription: w.string(errorDescription)
            case .eventName: w.string(eventName)
            case .id: w.string(id.lowercased)
            case .memoryUsageMB: w.double(memoryUsageMB)
            case .success: w.bool(success)
            case .timestamp: w.instant(timestamp)
            }
        }
    }
}

extension UsageGapBody: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .detectionMethod: w.string(detectionMethod)
            case .durationMinutes: w.int(durationMinutes)
            case .end: w.instant(end)
            case .start: w.instant(start)
            }
        }
    }
}

extension AlertBody: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .alertID: w.string(alertID.lowercased)
            case .budgetID: w.string(budgetID)
            case .budgetMinutes: w.int(budgetMinutes)
            case .category: w.string(category)
            case .clientAlertID: w.string(clientAlertID?.lowercased)
            case .createdAt: w.instant(createdAt)
            case .date: w.string(date)
            case .deviceId: w.string(deviceId?.lowercased)
            case .dismissedAt: w.instant(dismissedAt)
            case .kind: w.string(kind)
            case .logicalID: w.string(logicalID)
            case .memberId: w.string(memberId.lowercased)
            case .message: w.string(message)
            case .percent: w.int(percent)
            case .usedMinutes: w.int(usedMinutes)
            }
        }
    }
}

extension DailySummaryBody: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .appsUsed: w.array(appsUsed) { w, app in w.string(app) }
            case .byApp: w.array(byApp) { w, app in app.write(to: &w) }
            case .byCategory: w.array(byCategory) { w, category in category.write(to: &w) }
            case .date: w.string(date)
            case .deviceID: w.string(deviceID)
            case .lastUpdated: w.instant(lastUpdated)
            case .summaryID: w.string(summaryID)
            case .totalLearningSeconds: w.int(totalLearningSeconds)
            case .totalPickups: w.int(totalPickups)
            case .totalPointsEarned: w.int(totalPointsEarned)
            case .totalRewardSeconds: w.int(totalRewardSeconds)
            case .totalSeconds: w.int(totalSeconds)
            }
        }
    }
}

extension DailySummaryBody.App: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .category: w.string(category)
            case .displayName: w.string(displayName)
            case .logicalID: w.string(logicalID)
            case .pickups: w.int(pickups)
            case .points: w.int(points)
            case .seconds: w.int(seconds)
            }
        }
    }
}

extension DailySummaryBody.Category: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .category: w.string(category)
            case .points: w.int(points)
            case .seconds: w.int(seconds)
            }
        }
    }
}

extension PollResponse: WireJSONWritable {
    var estimatedBytes: Int { 128 + 64 * ((zones?.count ?? 0) + (devices?.count ?? 0)) }

    // Absent members are left out, as `JSONEncoder` leaves out a nil optional.
    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .changeToken: w.string(changeToken)
            case .changed: w.bool(changed)
            case .devices: if let devices { w.array(devices) { w, device in w.string(device) } }
            case .zones: if let zones { w.array(zones) { w, zone in w.string(zone) } }
            }
        }
    }
}

extension UsageUploadResponse: WireJSONWritable {
    var estimatedBytes: Int { 1024 + summaries.count * 2048 }

    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .accepted: w.int(accepted)
            case .alerts: w.array(alerts) { w, alert in alert.write(to: &w) }
            case .changeToken: w.string(changeToken)
            case .duplicates: w.int(duplicates)
            case .summaries: w.array(summaries) { w, summary in summary.write(to: &w) }
            }
        }
    }
}

extension UsageTotalsResponse: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .alerts: w.array(alerts) { w, alert in alert.write(to: &w) }
            case .changeToken: w.string(changeToken)
            case .summary: summary.write(to: &w)
            }
        }
    }
}

extension ModifyRecordsResponse: WireJSONWritable {
    var estimatedBytes: Int { 128 + records.count * 512 }

    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .changeToken: w.string(changeToken)
            case .records: w.array(records) { w, result in result.write(to: &w) }
            }
        }
    }
}

extension RecordResult: WireJSONWritable {
    /// A saved record is the record itself; a failure is the error object.
    func write(to writer: inout WireJSONWriter) {
        if let record {
            record.write(to: &writer)
            return
        }
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .error: if let error { error.write(to: &w) }
            case .recordName: w.string(recordName)
            case .serverRecord: if let serverRecord { serverRecord.write(to: &w) }
            }
        }
    }
}

extension ErrorResponse.Body: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .code: w.string(code)
            case .field: if let field { w.string(field) }
            case .reason: w.string(reason)
            case .retryAfter: if let retryAfter { w.int(retryAfter) }
            }
        }
    }
}

// Absent members are left out, as `JSONEncoder` leaves out a nil optional.
extension RecordBody: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .clientModifiedAt: if let clientModifiedAt { w.instant(clientModifiedAt) }
            case .created: if let created { created.write(to: &w) }
            case .deleted: if let deleted { w.bool(deleted) }
            case .fields: if let fields { w.value(.object(fields)) }
            case .modified: if let modified { modified.write(to: &w) }
            case .outcome: if let outcome { w.string(outcome) }
            case .recordChangeTag: if let recordChangeTag { w.string(recordChangeTag) }
            case .recordName: w.string(recordName)
            case .recordType: w.string(recordType)
            case .resolution: if let resolution { w.string(resolution) }
            }
        }
    }
}

extension RecordBody.Created: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .deviceId: w.string(deviceId)
            case .timestamp: w.instant(timestamp)
            }
        }
    }
}

extension RecordBody.Modified: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object(CodingKeys.self) { w, key in
            switch key {
            case .deviceId: w.string(deviceId)
            case .role: w.string(role)
            case .timestamp: w.instant(timestamp)
            }
        }
    }
}
