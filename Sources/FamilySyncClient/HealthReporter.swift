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
            let errors = Array(try store.load().pendingHealthErrors.prefix(ExtensionError.maximumPerReport))
            let request = HealthReportRequest(
                heartbeatAt: now, monitoringActive: monitoringActive, memoryUsageMB: memoryUsageMB, notificationSequence: notificationSequence,
                errors: errors.isEmpty ? nil : errors, appVersion: appVersion, osVersion: osVersion
            )
            let outcome = await Result(catching: { () async throws(FamilySyncError) -> DeviceHealthBody in try await client.reportHealth(request) })
            switch outcome {
            case .success(let answer):
                let sent = Set(errors.map(\.id))
                try store.update { $0.pendingHealthErrors.removeAll { sent.contains($0.id) } }
                return answer
            case .failure(let error):
                guard error.code == .badRequest, let index = Self.errorIndex(error.field), index < errors.count else { throw error }
                let refused = errors[index].id
                try store.update { $0.pendingHealthErrors.removeAll { $0.id == refused } }
            }
        }
    }

    /// `N` of a field `errors[N]…`.
    static func errorIndex(_ field: String?) -> Int? {
        guard let field, field.hasPrefix("errors["), let end = field.firstIndex(of: "]") else { return nil }
        return Int(field[field.index(field.startIndex, offsetBy: 7)..<end])
    }
}
