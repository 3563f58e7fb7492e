import FamilySyncCore
import FamilySyncProtocol
import Foundation

// The hot paths' answers written directly (`WireJSONWriter`): each member as the type's `encode`
// writes it (null where it encodes a nil, left out where it leaves one out), keys sorted.

extension DeviceHealthBody: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object { w in
            w.key("date"); w.string(date)
            w.key("deviceId"); w.string(deviceId.lowercased)
            w.key("errorsToday"); w.int(errorsToday)
            w.key("gapMinutesToday"); w.int(gapMinutesToday)
            w.key("gapsToday"); w.array(gapsToday) { w, gap in gap.write(to: &w) }
            w.key("heartbeatGapSeconds"); w.int(heartbeatGapSeconds)
            w.key("lastErrors"); w.array(lastErrors) { w, error in error.write(to: &w) }
            w.key("lastHeartbeatAt"); w.instant(lastHeartbeatAt)
            w.key("memoryUsageMB"); w.double(memoryUsageMB)
            w.key("missedNotifications"); w.int(missedNotifications)
            w.key("sequenceResets"); w.int(sequenceResets)
            w.key("status"); w.string(status)
        }
    }
}

extension ExtensionErrorBody: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object { w in
            w.key("action"); w.string(action)
            w.key("errorDescription"); w.string(errorDescription)
            w.key("eventName"); w.string(eventName)
            w.key("id"); w.string(id.lowercased)
            w.key("memoryUsageMB"); w.double(memoryUsageMB)
            w.key("success"); w.bool(success)
            w.key("timestamp"); w.instant(timestamp)
        }
    }
}

extension UsageGapBody: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object { w in
            w.key("detectionMethod"); w.string(detectionMethod)
            w.key("durationMinutes"); w.int(durationMinutes)
            w.key("end"); w.instant(end)
            w.key("start"); w.instant(start)
        }
    }
}

extension AlertBody: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object { w in
            w.key("alertID"); w.string(alertID.lowercased)
            w.key("budgetID"); w.string(budgetID)
            w.key("budgetMinutes"); w.int(budgetMinutes)
            w.key("category"); w.string(category)
            w.key("clientAlertID"); w.string(clientAlertID?.lowercased)
            w.key("createdAt"); w.instant(createdAt)
            w.key("date"); w.string(date)
            w.key("deviceId"); w.string(deviceId?.lowercased)
            w.key("dismissedAt"); w.instant(dismissedAt)
            w.key("kind"); w.string(kind)
            w.key("logicalID"); w.string(logicalID)
            w.key("memberId"); w.string(memberId.lowercased)
            w.key("message"); w.string(message)
            w.key("percent"); w.int(percent)
            w.key("usedMinutes"); w.int(usedMinutes)
        }
    }
}

extension DailySummaryBody: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object { w in
            w.key("appsUsed"); w.array(appsUsed) { w, app in w.string(app) }
            w.key("byApp")
            w.array(byApp) { w, app in
                w.object { w in
                    w.key("category"); w.string(app.category)
                    w.key("displayName"); w.string(app.displayName)
                    w.key("logicalID"); w.string(app.logicalID)
                    w.key("pickups"); w.int(app.pickups)
                    w.key("points"); w.int(app.points)
                    w.key("seconds"); w.int(app.seconds)
                }
            }
            w.key("byCategory")
            w.array(byCategory) { w, category in
                w.object { w in
                    w.key("category"); w.string(category.category)
                    w.key("points"); w.int(category.points)
                    w.key("seconds"); w.int(category.seconds)
                }
            }
            w.key("date"); w.string(date)
            w.key("deviceID"); w.string(deviceID)
            w.key("lastUpdated"); w.instant(lastUpdated)
            w.key("summaryID"); w.string(summaryID)
            w.key("totalLearningSeconds"); w.int(totalLearningSeconds)
            w.key("totalPickups"); w.int(totalPickups)
            w.key("totalPointsEarned"); w.int(totalPointsEarned)
            w.key("totalRewardSeconds"); w.int(totalRewardSeconds)
            w.key("totalSeconds"); w.int(totalSeconds)
        }
    }
}

extension PollResponse: WireJSONWritable {
    var estimatedBytes: Int { 128 + 64 * ((zones?.count ?? 0) + (devices?.count ?? 0)) }

    // Absent members are left out, as `JSONEncoder` leaves out a nil optional.
    func write(to writer: inout WireJSONWriter) {
        writer.object { w in
            w.key("changeToken"); w.string(changeToken)
            w.key("changed"); w.bool(changed)
            if let devices { w.key("devices"); w.array(devices) { w, device in w.string(device) } }
            if let zones { w.key("zones"); w.array(zones) { w, zone in w.string(zone) } }
        }
    }
}

extension UsageUploadResponse: WireJSONWritable {
    var estimatedBytes: Int { 1024 + summaries.count * 2048 }

    func write(to writer: inout WireJSONWriter) {
        writer.object { w in
            w.key("accepted"); w.int(accepted)
            w.key("alerts"); w.array(alerts) { w, alert in alert.write(to: &w) }
            w.key("changeToken"); w.string(changeToken)
            w.key("duplicates"); w.int(duplicates)
            w.key("summaries"); w.array(summaries) { w, summary in summary.write(to: &w) }
        }
    }
}

extension UsageTotalsResponse: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object { w in
            w.key("alerts"); w.array(alerts) { w, alert in alert.write(to: &w) }
            w.key("changeToken"); w.string(changeToken)
            w.key("summary"); summary.write(to: &w)
        }
    }
}

extension ModifyRecordsResponse: WireJSONWritable {
    var estimatedBytes: Int { 128 + records.count * 512 }

    func write(to writer: inout WireJSONWriter) {
        writer.object { w in
            w.key("changeToken"); w.string(changeToken)
            w.key("records")
            w.array(records) { w, result in
                if let record = result.record {
                    record.write(to: &w)
                    return
                }
                w.object { w in
                    if let error = result.error {
                        w.key("error")
                        w.object { w in
                            w.key("code"); w.string(error.code)
                            if let field = error.field { w.key("field"); w.string(field) }
                            w.key("reason"); w.string(error.reason)
                            if let retryAfter = error.retryAfter { w.key("retryAfter"); w.int(retryAfter) }
                        }
                    }
                    w.key("recordName"); w.string(result.recordName)
                    if let server = result.serverRecord { w.key("serverRecord"); server.write(to: &w) }
                }
            }
        }
    }
}

extension RecordBody: WireJSONWritable {
    func write(to writer: inout WireJSONWriter) {
        writer.object { w in
            if let clientModifiedAt { w.key("clientModifiedAt"); w.instant(clientModifiedAt) }
            if let created {
                w.key("created")
                w.object { w in
                    w.key("deviceId"); w.string(created.deviceId)
                    w.key("timestamp"); w.instant(created.timestamp)
                }
            }
            if let deleted { w.key("deleted"); w.bool(deleted) }
            if let fields { w.key("fields"); w.value(.object(fields)) }
            if let modified {
                w.key("modified")
                w.object { w in
                    w.key("deviceId"); w.string(modified.deviceId)
                    w.key("role"); w.string(modified.role)
                    w.key("timestamp"); w.instant(modified.timestamp)
                }
            }
            if let outcome { w.key("outcome"); w.string(outcome) }
            if let recordChangeTag { w.key("recordChangeTag"); w.string(recordChangeTag) }
            w.key("recordName"); w.string(recordName)
            w.key("recordType"); w.string(recordType)
            if let resolution { w.key("resolution"); w.string(resolution) }
        }
    }
}
