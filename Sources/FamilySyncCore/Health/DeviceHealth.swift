import Foundation

/// An error a device's monitoring extension logged (PROTOCOL §10), kept by the server (the newest
/// `maximumKept` a device), once per `id`.
public struct ExtensionError: Sendable, Equatable {
    public var id: UUID
    public var timestamp: Date
    public var eventName: String
    /// `record_usage`, `post_notification`, `memory_warning`, or `x-…`.
    public var action: String
    public var success: Bool
    public var errorDescription: String?
    public var memoryUsageMB: Double?

    public init(id: UUID, timestamp: Date, eventName: String, action: String, success: Bool, errorDescription: String? = nil, memoryUsageMB: Double? = nil) {
        self.id = id
        self.timestamp = timestamp
        self.eventName = eventName
        self.action = action
        self.success = success
        self.errorDescription = errorDescription
        self.memoryUsageMB = memoryUsageMB
    }

    public static let actions: Set = ["record_usage", "post_notification", "memory_warning"]
    public static let maximumKept = 100
    public static let maximumPerReport = 100

    /// §10's rules for one entry; `field` names it (`errors[3]`).
    public func validate(now: Date, field: String) throws(FamilySyncError) {
        func bad(_ member: String, _ reason: String) -> FamilySyncError { .badRequest(reason, field: "\(field).\(member)") }
        guard (1...255).contains(eventName.utf8.count) else { throw bad("eventName", "eventName is 1–255 bytes.") }
        guard Self.actions.contains(action) || Self.isCustom(action) else {
            throw bad("action", "action is record_usage, post_notification, memory_warning, or x-… (1–64 of a-z, 0-9, _ and - after x-).")
        }
        if let errorDescription, errorDescription.utf8.count > 2000 { throw bad("errorDescription", "errorDescription is at most 2000 bytes.") }
        if let memoryUsageMB, !(0...1_000_000).contains(memoryUsageMB) { throw bad("memoryUsageMB", "memoryUsageMB is 0–1000000.") }
        guard timestamp <= now.addingTimeInterval(HeartbeatRules.futureAllowance) else { throw bad("timestamp", "timestamp is more than 5 minutes in the future.") }
    }

    static func isCustom(_ action: String) -> Bool {
        guard action.hasPrefix("x-") else { return false }
        let tail = action.utf8.dropFirst(2)
        return (1...64).contains(tail.count) && tail.allSatisfy { (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5f || $0 == 0x2d }
    }
}

/// A device's tracking health on one local day (§10): what the `health` record in its zone holds,
/// and what `GET /v1/devices/{id}/health` answers.
public struct DeviceHealth: Sendable, Equatable {
    /// The day's errors a device's `DeviceHealth` record lists (its devices read it), newest
    /// first; the parent's read of the day (`GET /v1/devices/{id}/health`) lists more.
    public static let errorsInRecord = 10
    public static let errorsInRead = 20

    public var deviceID: UUID
    public var date: String
    public var status: TrackingStatus
    public var lastHeartbeatAt: Date?
    /// Seconds since the last heartbeat, as of `asOf`.
    public var heartbeatGapSeconds: Int?
    public var memoryUsageMB: Double?
    public var missedNotifications: Int
    public var sequenceResets: Int
    public var errorsToday: Int
    /// Newest first.
    public var lastErrors: [ExtensionError]
    public var gapsToday: [UsageGap]
    /// Heartbeat gaps only (the `tracking` alert's measure).
    public var gapMinutesToday: Int
    public var asOf: Date

    public init(
        deviceID: UUID, date: String, status: TrackingStatus, lastHeartbeatAt: Date?, heartbeatGapSeconds: Int?, memoryUsageMB: Double?, missedNotifications: Int,
        sequenceResets: Int, errorsToday: Int, lastErrors: [ExtensionError], gapsToday: [UsageGap], gapMinutesToday: Int, asOf: Date
    ) {
        self.deviceID = deviceID
        self.date = date
        self.status = status
        self.lastHeartbeatAt = lastHeartbeatAt
        self.heartbeatGapSeconds = heartbeatGapSeconds
        self.memoryUsageMB = memoryUsageMB
        self.missedNotifications = missedNotifications
        self.sequenceResets = sequenceResets
        self.errorsToday = errorsToday
        self.lastErrors = lastErrors
        self.gapsToday = gapsToday
        self.gapMinutesToday = gapMinutesToday
        self.asOf = asOf
    }

    public static let recordName = "health"

    /// A device's day from what the server keeps: its heartbeat state, that day's counters, its
    /// stored heartbeat gaps and sessions, and its errors. `errorLimit` of the day's errors are listed.
    public static func day(
        _ date: String, in timeZone: TimeZone, deviceID: UUID, lastHeartbeatAt: Date?, monitoringActive: Bool, memoryUsageMB: Double?, missedNotifications: Int,
        sequenceResets: Int, heartbeatGaps: [UsageGap], sessions: [UsageSession], errors: [ExtensionError], errorLimit: Int, now: Date
    ) -> DeviceHealth? {
        guard let day = DailySummaryCalculator.interval(of: date, in: timeZone) else { return nil }
        var gaps = heartbeatGaps
        if let open = HeartbeatRules.openGap(lastHeartbeat: lastHeartbeatAt, monitoringActive: monitoringActive, now: now) { gaps.append(open) }
        let heartbeat = HeartbeatRules.gaps(gaps, within: day)
        let all = (heartbeat + HeartbeatRules.sessionGaps(sessions, within: day)).sorted { ($0.start, $0.method.rawValue) < ($1.start, $1.method.rawValue) }
        let ofDay = errors.filter { day.contains($0.timestamp) && $0.timestamp < day.end }.sorted { ($0.timestamp, $0.id.uuidString) > ($1.timestamp, $1.id.uuidString) }
        return DeviceHealth(
            deviceID: deviceID, date: date, status: HeartbeatRules.status(lastHeartbeat: lastHeartbeatAt, monitoringActive: monitoringActive, now: now),
            lastHeartbeatAt: lastHeartbeatAt, heartbeatGapSeconds: lastHeartbeatAt.map { max(0, Int(now.timeIntervalSince($0))) }, memoryUsageMB: memoryUsageMB,
            missedNotifications: missedNotifications, sequenceResets: sequenceResets, errorsToday: ofDay.count, lastErrors: Array(ofDay.prefix(errorLimit)),
            gapsToday: all, gapMinutesToday: HeartbeatRules.heartbeatGapMinutes(heartbeat), asOf: now
        )
    }

    /// The `health` record's fields (the day's errors, at most 10).
    public var fields: [String: JSONValue] {
        return [
            "deviceId": .string(deviceID.lowercased), "date": .string(date), "status": .string(status.rawValue),
            "lastHeartbeatAt": lastHeartbeatAt.map { .string(Instant.format($0)) } ?? .null, "memoryUsageMB": memoryUsageMB.map(JSONValue.number) ?? .null,
            "missedNotifications": .number(Double(missedNotifications)), "sequenceResets": .number(Double(sequenceResets)),
            "errorsToday": .number(Double(errorsToday)),
            "lastErrors": .array(lastErrors.prefix(10).map { error in
                .object([
                    "id": .string(error.id.lowercased), "timestamp": .string(Instant.format(error.timestamp)), "eventName": .string(error.eventName),
                    "action": .string(error.action), "success": .bool(error.success), "errorDescription": error.errorDescription.map(JSONValue.string) ?? .null,
                    "memoryUsageMB": error.memoryUsageMB.map(JSONValue.number) ?? .null,
                ])
            }),
            "gapsToday": .array(gapsToday.map { gap in
                .object([
                    "start": .string(Instant.format(gap.start)), "end": .string(Instant.format(gap.end)), "durationMinutes": .number(Double(gap.durationMinutes)),
                    "detectionMethod": .string(gap.method.rawValue),
                ])
            }),
            "gapMinutesToday": .number(Double(gapMinutesToday)),
        ]
    }

    /// The `health` record read back (`asOf` and `heartbeatGapSeconds` are the caller's to set).
    public init?(fields: [String: JSONValue], deviceID: UUID) {
        func string(_ object: [String: JSONValue], _ key: String) -> String? { if case .string(let value)? = object[key] { value } else { nil } }
        func integer(_ object: [String: JSONValue], _ key: String) -> Int? {
            if case .number(let value)? = object[key], let int = Int(exactly: value) { int } else { nil }
        }
        func number(_ object: [String: JSONValue], _ key: String) -> Double? { if case .number(let value)? = object[key] { value } else { nil } }
        guard let date = string(fields, "date"), let status = string(fields, "status").flatMap(TrackingStatus.init(rawValue:)),
            let missed = integer(fields, "missedNotifications"), let resets = integer(fields, "sequenceResets"), let errorsToday = integer(fields, "errorsToday"),
            let gapMinutes = integer(fields, "gapMinutesToday"), case .array(let errorList)? = fields["lastErrors"], case .array(let gapList)? = fields["gapsToday"]
        else { return nil }
        var errors: [ExtensionError] = []
        for case .object(let error) in errorList {
            guard let id = string(error, "id").flatMap(UUID.init(uuidString:)), let at = string(error, "timestamp").flatMap(Instant.parse),
                let name = string(error, "eventName"), let action = string(error, "action"), case .bool(let success)? = error["success"]
            else { return nil }
            errors.append(ExtensionError(
                id: id, timestamp: at, eventName: name, action: action, success: success, errorDescription: string(error, "errorDescription"),
                memoryUsageMB: number(error, "memoryUsageMB")
            ))
        }
        var gaps: [UsageGap] = []
        for case .object(let gap) in gapList {
            guard let start = string(gap, "start").flatMap(Instant.parse), let end = string(gap, "end").flatMap(Instant.parse),
                let method = string(gap, "detectionMethod").flatMap(UsageGap.Method.init(rawValue:))
            else { return nil }
            gaps.append(UsageGap(start: start, end: end, method: method))
        }
        let last = string(fields, "lastHeartbeatAt").flatMap(Instant.parse)
        self.init(
            deviceID: deviceID, date: date, status: status, lastHeartbeatAt: last, heartbeatGapSeconds: nil, memoryUsageMB: number(fields, "memoryUsageMB"),
            missedNotifications: missed, sequenceResets: resets, errorsToday: errorsToday, lastErrors: errors, gapsToday: gaps, gapMinutesToday: gapMinutes,
            asOf: last ?? Date(timeIntervalSince1970: 0)
        )
    }

    /// The diagnostics export (§10): three sections, plain text, for a parent to read or send on.
    public func export(deviceName: String, timeZone: String) -> String {
        func instant(_ date: Date?) -> String { date.map(Instant.format) ?? "never" }
        var lines = [
            "FamilySync tracking diagnostics: \(deviceName) (\(deviceID.lowercased)), \(date) (\(timeZone)), as of \(Instant.format(asOf))",
            "",
            "EXTENSION HEALTH",
            "status: \(status.rawValue)",
            "last heartbeat: \(instant(lastHeartbeatAt))" + (heartbeatGapSeconds.map { " (\($0) s ago)" } ?? ""),
            "memory: " + (memoryUsageMB.map { "\(Self.megabytes($0)) MB" } ?? "not reported"),
            "missed notifications: \(missedNotifications)",
            "sequence resets: \(sequenceResets)",
            "errors: \(errorsToday)",
            "",
            "DATA GAPS",
        ]
        lines += gapsToday.isEmpty ? ["none"] : gapsToday.map { "\(Instant.format($0.start)) to \(Instant.format($0.end))  \($0.durationMinutes) min  \($0.method.rawValue)" }
        lines.append("heartbeat gaps: \(gapMinutesToday) min")
        lines += ["", "ERROR LOG"]
        lines += lastErrors.isEmpty ? ["none"] : lastErrors.map { error in
            "\(Instant.format(error.timestamp))  \(error.action)  \(error.success ? "ok" : "failed")  \(error.eventName)"
                + (error.errorDescription.map { ": \($0)" } ?? "") + (error.memoryUsageMB.map { " (\(Self.megabytes($0)) MB)" } ?? "")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Megabytes as people write them: `6`, `4.1` (the shortest digits that read back the same).
    public static func megabytes(_ value: Double) -> String {
        value.rounded() == value && value.magnitude < 1e15 ? String(Int64(value)) : "\(value)"
    }
}

/// What a tracked device reports (`POST /v1/devices/me/health`), checked.
public struct HealthReport: Sendable, Equatable {
    public var heartbeatAt: Date
    public var monitoringActive: Bool
    public var memoryUsageMB: Double?
    public var notificationSequence: Int64?
    public var errors: [ExtensionError]
    /// The app's version and the system's, as the device names them (`2.4.1`, `18.1`): the weekly
    /// tracking report groups devices by them (§10.1).
    public var appVersion: String?
    public var osVersion: String?

    public init(
        heartbeatAt: Date, monitoringActive: Bool, memoryUsageMB: Double? = nil, notificationSequence: Int64? = nil, errors: [ExtensionError] = [],
        appVersion: String? = nil, osVersion: String? = nil
    ) {
        self.heartbeatAt = heartbeatAt
        self.monitoringActive = monitoringActive
        self.memoryUsageMB = memoryUsageMB
        self.notificationSequence = notificationSequence
        self.errors = errors
        self.appVersion = appVersion
        self.osVersion = osVersion
    }

    /// The longest version a report may name.
    public static let maximumVersionLength = 64

    /// `notificationSequence`'s range (§10): a 32-bit count of the extension's notifications (68
    /// years at one a second), so that a report skips at most 2147483646 and the day's counters,
    /// 32-bit like every count the server keeps, hold what one report adds.
    public static let notificationSequences: ClosedRange<Int64> = 0...Int64(Int32.max)

    /// Whether `text` may be a report's `appVersion` or `osVersion`: printable and short, since it
    /// is a label of the operator's report, not free text.
    public static func isVersion(_ text: String) -> Bool {
        (1...maximumVersionLength).contains(text.unicodeScalars.count) && text.unicodeScalars.allSatisfy { (0x20...0x7e).contains($0.value) }
            && text.first != " " && text.last != " "
    }

    /// §10's rules: a heartbeat at most 5 minutes ahead, a sequence number in its range, at most
    /// 100 errors, each valid and once.
    public func validate(now: Date) throws(FamilySyncError) {
        guard heartbeatAt <= now.addingTimeInterval(HeartbeatRules.futureAllowance) else {
            throw .badRequest("heartbeatAt is more than 5 minutes in the future.", field: "heartbeatAt")
        }
        if let memoryUsageMB, !(0...1_000_000).contains(memoryUsageMB) { throw .badRequest("memoryUsageMB is 0–1000000.", field: "memoryUsageMB") }
        if let notificationSequence, !Self.notificationSequences.contains(notificationSequence) {
            throw .badRequest("notificationSequence is 0–\(Self.notificationSequences.upperBound).", field: "notificationSequence")
        }
        for (field, version) in [("appVersion", appVersion), ("osVersion", osVersion)] {
            guard let version else { continue }
            guard Self.isVersion(version) else {
                throw .badRequest("\(field) is 1–\(Self.maximumVersionLength) printable ASCII characters, not starting or ending with a space (2.4.1, 18.1 (22B83)).", field: field)
            }
        }
        guard errors.count <= ExtensionError.maximumPerReport else {
            throw .limitExceeded("At most \(ExtensionError.maximumPerReport) errors a report; this one has \(errors.count).", field: "errors")
        }
        var seen: Set<UUID> = []
        for (index, error) in errors.enumerated() {
            try error.validate(now: now, field: "errors[\(index)]")
            guard seen.insert(error.id).inserted else { throw .badRequest("An error id appears once in a report.", field: "errors[\(index)].id") }
        }
    }
}
