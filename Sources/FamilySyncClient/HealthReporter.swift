import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// What an app's monitoring side calls from its timer (PROTOCOL §10): a heartbeat every 30–60 s
/// while monitoring, with the extension's errors. Errors are saved before anything is sent and
/// dropped only once the server has them (it keeps each once by id, so sending again is safe);
/// they survive offline periods and restarts in the same state file as the usage queue.
/// Heartbeats are not queued: one says "alive now", and the next one says it again.
public actor HealthReporter {
    let store: any SyncStateStore
    /// The most errors kept waiting; older ones go first when a long offline period fills it.
    public let capacity: Int

    /// Sent with every heartbeat for the operator's weekly tracking report (§10.1): by default the
    /// app's `CFBundleShortVersionString` and the system's version; nil (or a text the server would
    /// refuse) sends none.
    public let appVersion: String?
    public let osVersion: String?

    public init(store: any SyncStateStore, capacity: Int = 1000, appVersion: String? = HealthReporter.bundleVersion, osVersion: String? = HealthReporter.systemVersion) {
        self.store = store
        self.capacity = capacity
        self.appVersion = appVersion.flatMap { HealthReport.isVersion($0) ? $0 : nil }
        self.osVersion = osVersion.flatMap { HealthReport.isVersion($0) ? $0 : nil }
    }

    /// The main bundle's `CFBundleShortVersionString` (none outside an app bundle).
    public static var bundleVersion: String? {
        Bundle.main.infoDictionary?["CFBundleShortVersionString"] as? String
    }

    /// The system's version, `18.1.0`.
    public static var systemVersion: String {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
    }

    /// Saves an error of the extension for the next heartbeat.
    public func record(_ error: ExtensionErrorBody) throws {
        try store.update { state in
            guard !state.pendingHealthErrors.contains(where: { $0.id == error.id }) else { return }
            state.pendingHealthErrors.append(error)
            if state.pendingHealthErrors.count > capacity { state.pendingHealthErrors.removeFirst(state.pendingHealthErrors.count - capacity) }
        }
    }

    public func pending() throws -> [ExtensionErrorBody] {
        try store.load().pendingHealthErrors
    }

    /// Sends a heartbeat now with the oldest waiting errors (at most 100 a report, the rest with the
    /// following heartbeats), and drops those the server took. An error the server refuses (400
    /// naming `errors[i]`) is dropped and the heartbeat sent again without it, so that one bad
    /// entry cannot hold back the rest; any other failure throws and keeps them all.
    @discardableResult
    public func beat(
        with client: FamilySyncClient, monitoringActive: Bool, memoryUsageMB: Double? = nil, notificationSequence: Int64? = nil, at now: Date = Date()
    ) async throws -> DeviceHealthBody {
        while true {
            let request = try report(monitoringActive: monitoringActive, memoryUsageMB: memoryUsageMB, notificationSequence: notificationSequence, at: now)
            let outcome = await Result(catching: { () async throws(FamilySyncError) -> DeviceHealthBody in try await client.reportHealth(request) })
            switch outcome {
            case .success(let answer):
                try delivered(request)
                return answer
            case .failure(let error):
                guard try dropRefused(error, in: request) else { throw error }
            }
        }
    }

    /// The heartbeat to send now, with the oldest waiting errors (at most 100): for `beat`, or for
    /// a poll that carries it (`SyncEngine`'s `heartbeat`, `POST /v1/poll`). Nothing leaves the
    /// queue until `delivered`.
    public func report(monitoringActive: Bool, memoryUsageMB: Double? = nil, notificationSequence: Int64? = nil, at now: Date = Date()) throws -> HealthReportRequest {
        let errors = Array(try store.load().pendingHealthErrors.prefix(ExtensionError.maximumPerReport))
        return HealthReportRequest(
            heartbeatAt: now, monitoringActive: monitoringActive, memoryUsageMB: memoryUsageMB, notificationSequence: notificationSequence,
            errors: errors.isEmpty ? nil : errors, appVersion: appVersion, osVersion: osVersion
        )
    }

    /// The server took `report`: its errors leave the queue.
    public func delivered(_ report: HealthReportRequest) throws {
        let sent = Set((report.errors ?? []).map(\.id))
        guard !sent.isEmpty else { return }
        try store.update { $0.pendingHealthErrors.removeAll { sent.contains($0.id) } }
    }

    /// The server refused `report` with `error`: if it named one of its errors (400 naming
    /// `errors[i]`), that error is dropped and the report can go again without it (true).
    public func dropRefused(_ error: FamilySyncError, in report: HealthReportRequest) throws -> Bool {
        let errors = report.errors ?? []
        guard error.code == .badRequest, let index = Self.errorIndex(error.field), index < errors.count else { return false }
        let refused = errors[index].id
        try store.update { $0.pendingHealthErrors.removeAll { $0.id == refused } }
        return true
    }

    /// `N` of a field `errors[N]…`.
    static func errorIndex(_ field: String?) -> Int? {
        guard let field, field.hasPrefix("errors["), let end = field.firstIndex(of: "]") else { return nil }
        return Int(field[field.index(field.startIndex, offsetBy: 7)..<end])
    }
}

/// What a tracked device's polls carry as its heartbeat (`SyncEngine(heartbeat:)`): its reporter,
/// whose queued errors go with it, and the monitoring extension's state as of each poll.
public struct PollHeartbeat: Sendable {
    public let reporter: HealthReporter
    public let status: @Sendable () async -> MonitoringStatus
    /// The heartbeat's `heartbeatAt` (the device's clock).
    public let now: @Sendable () -> Date

    public init(reporter: HealthReporter, now: @escaping @Sendable () -> Date = { Date() }, status: @escaping @Sendable () async -> MonitoringStatus) {
        self.reporter = reporter
        self.now = now
        self.status = status
    }

    func report() async throws -> HealthReportRequest {
        let status = await status()
        return try await reporter.report(
            monitoringActive: status.monitoringActive, memoryUsageMB: status.memoryUsageMB, notificationSequence: status.notificationSequence, at: now()
        )
    }
}

/// The monitoring extension's state a heartbeat reports (PROTOCOL §10).
public struct MonitoringStatus: Sendable {
    public var monitoringActive: Bool
    public var memoryUsageMB: Double?
    public var notificationSequence: Int64?

    public init(monitoringActive: Bool, memoryUsageMB: Double? = nil, notificationSequence: Int64? = nil) {
        self.monitoringActive = monitoringActive
        self.memoryUsageMB = memoryUsageMB
        self.notificationSequence = notificationSequence
    }
}
