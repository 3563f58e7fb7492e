import FamilySyncCore
import FamilySyncProtocol
import Foundation

// The calls of monitoring: commands, usage, health and reports (§7, §10).

extension FamilySyncClient {
    // MARK: Monitoring (§7)

    /// `idempotencyKey` (§1.2.1): sent again with the same key, the command is made once.
    public func sendCommand(to child: UUID, _ request: CreateCommandRequest, idempotencyKey: String? = nil) async throws(FamilySyncError) -> CommandBody {
        try await send(.POST, "/v1/devices/\(child.lowercased)/commands", body: request, idempotencyKey: idempotencyKey, as: CommandBody.self)
    }

    /// The child's commands; when the child itself asks, its pending ones become delivered.
    public func commands(of child: UUID, status: CommandStatusFilter? = nil) async throws(FamilySyncError) -> [CommandBody] {
        try await send(.GET, "/v1/devices/\(child.lowercased)/commands", query: [("status", status?.rawValue)], as: CommandList.self).commands
    }

    public func reportResult(of command: UUID, executed: Bool, error: String? = nil) async throws(FamilySyncError) -> CommandBody {
        let body = CommandResultRequest(status: executed ? "executed" : "failed", error: executed ? nil : error)
        return try await send(.POST, "/v1/commands/\(command.lowercased)/result", body: body, as: CommandBody.self)
    }

    public func cancelCommand(_ command: UUID) async throws(FamilySyncError) -> CommandBody {
        try await send(.POST, "/v1/commands/\(command.lowercased)/cancel", body: NoBody(), as: CommandBody.self)
    }

    public func uploadUsage(_ request: UsageUploadRequest) async throws(FamilySyncError) -> UsageUploadResponse {
        try await send(.POST, "/v1/usage", body: request, replayable: true, as: UsageUploadResponse.self)
    }

    /// §9.2: this device's running totals for a day. Send them as often as they grow (each app's
    /// largest total is kept, so a late or repeated report is harmless).
    public func uploadTotals(_ request: UsageTotalsRequest) async throws(FamilySyncError) -> UsageTotalsResponse {
        try await send(.POST, "/v1/usage/totals", body: request, replayable: true, as: UsageTotalsResponse.self)
    }

    /// §10: a heartbeat and errors of this device's monitoring extension (`HealthReporter` sends
    /// them with its queue of errors); answers the device's day.
    public func reportHealth(_ request: HealthReportRequest) async throws(FamilySyncError) -> DeviceHealthBody {
        try await send(.POST, "/v1/devices/me/health", body: request, as: DeviceHealthBody.self)
    }

    /// §10: a device's tracking health on `date` (its today when nil).
    public func health(of device: UUID, date: String? = nil) async throws(FamilySyncError) -> DeviceHealthBody {
        try await send(.GET, "/v1/devices/\(device.lowercased)/health", query: [("date", date)], as: DeviceHealthBody.self)
    }

    /// §10: the plain-text diagnostics export of a device's day (three sections).
    public func healthExport(of device: UUID, date: String? = nil) async throws(FamilySyncError) -> String {
        try await send(.GET, "/v1/devices/\(device.lowercased)/health", query: [("date", date)], body: Optional<NoBody>.none, accept: "text/plain", as: String.self)
    }

    /// §10.1, the operator's: the weekly tracking report of `week` (`2026-W48`; the last whole week
    /// when nil), for a client made with the operator token as its credential
    /// (`FamilySyncClient(serverURL:credential:)`), not a device's.
    public func trackingReport(week: String? = nil) async throws(FamilySyncError) -> TrackingReportBody {
        try await send(.GET, "/v1/fleet/tracking-report", query: [("week", week)], as: TrackingReportBody.self)
    }

    /// §10.1: the same report as text, as `familysync fleet report` prints it.
    public func trackingReportText(week: String? = nil) async throws(FamilySyncError) -> String {
        try await send(.GET, "/v1/fleet/tracking-report", query: [("week", week)], body: Optional<NoBody>.none, accept: "text/plain", as: String.self)
    }

    /// §11: what a device shields at `at` (now when nil): its member's schedules, configured
    /// blocking and executed block/unblock commands.
    public func shieldState(of device: UUID, at: Date? = nil) async throws(FamilySyncError) -> ShieldStateBody {
        try await send(.GET, "/v1/devices/\(device.lowercased)/shield-state", query: [("at", at.map(Instant.format))], as: ShieldStateBody.self)
    }

    /// Dates `YYYY-MM-DD`, both included; days without usage come as zeros.
    public func summaries(of child: UUID, from: String, to: String) async throws(FamilySyncError) -> [DailySummaryBody] {
        try await send(.GET, "/v1/devices/\(child.lowercased)/summaries", query: [("from", from), ("to", to)], as: SummaryList.self).summaries
    }

    public func usage(of child: UUID, from: Date, to: Date, limit: Int? = nil, cursor: String? = nil) async throws(FamilySyncError) -> UsageList {
        try await send(.GET, "/v1/devices/\(child.lowercased)/usage", query: [
            ("from", Instant.format(from)), ("to", Instant.format(to)), ("limit", limit.map(String.init)), ("cursor", cursor),
        ], as: UsageList.self)
    }

    public func report(of child: UUID, from: String, to: String, granularity: UsageReport.Granularity = .day) async throws(FamilySyncError) -> ReportBody {
        try await send(.GET, "/v1/devices/\(child.lowercased)/report", query: [("from", from), ("to", to), ("granularity", granularity.rawValue)], as: ReportBody.self)
    }

    /// The same report as RFC 4180 CSV.
    public func reportCSV(of child: UUID, from: String, to: String, granularity: UsageReport.Granularity = .day) async throws(FamilySyncError) -> String {
        try await send(
            .GET, "/v1/devices/\(child.lowercased)/report", query: [("from", from), ("to", to), ("granularity", granularity.rawValue)],
            body: Optional<NoBody>.none, accept: "text/csv", as: String.self
        )
    }
}
