import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// Device health (PROTOCOL §10): a tracked device's heartbeats and error log, and a day's health
/// for its parents, as JSON or the plain-text diagnostics export.
package struct DeviceHealthController {
    let intake: PostgresHealthIntake
    let reads: PostgresHealthReads
    let metrics: HealthMetrics
    let clock: any WallClock

    package init(intake: PostgresHealthIntake, reads: PostgresHealthReads, metrics: HealthMetrics, clock: any WallClock) {
        self.intake = intake
        self.reads = reads
        self.metrics = metrics
        self.clock = clock
    }

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.post("devices/me/health", use: report)
            .get("devices/:id/health", use: read)
    }

    /// `POST /v1/devices/me/health`: a heartbeat (and errors); answers the device's day.
    @Sendable func report(_ request: Request, context: FamilySyncRequestContext) async throws -> DeviceHealthBody {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .reportHealth)
        let reported = try await take(try await report(in: request, context: context), from: caller, as: context.writer, answering: true)
        guard let health = reported.health else { throw FamilySyncError(.internalError, "The heartbeat was taken but its day was not read.") }
        return DeviceHealthBody(health)
    }

    /// The heartbeat a request's body carries, checked (§10's bad-input rules).
    func report(in request: Request, context: FamilySyncRequestContext) async throws -> HealthReport {
        let body = try await request.decode(as: HealthReportRequest.self, context: context)
        let report = HealthReport(
            heartbeatAt: body.heartbeatAt, monitoringActive: body.monitoringActive, memoryUsageMB: body.memoryUsageMB,
            notificationSequence: body.notificationSequence, errors: (body.errors ?? []).map(\.error), appVersion: body.appVersion, osVersion: body.osVersion
        )
        try report.validate(now: clock.now())
        return report
    }

    /// Records a checked heartbeat and its metrics. `answering`: the device's day is read back
    /// for the answer (a poll's heartbeat does without).
    func take(_ report: HealthReport, from caller: AuthenticatedDevice, as writer: ChangeWriter, answering: Bool) async throws -> PostgresHealthIntake.Reported {
        let reported = try await intake.report(report, by: caller, answering: answering, as: writer)
        metrics.record(reported)
        return reported
    }

    /// `GET /v1/devices/{id}/health?date=`: JSON, or with `Accept: text/plain` the export.
    @Sendable func read(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        let deviceID = try context.pathID()
        try AccessPolicy.check(caller, .readHealth(device: deviceID))
        let date: String? = request.uri.queryParameters.get("date").map { String($0) }
        if let date, DailySummaryCalculator.interval(of: date, in: .gmt) == nil {
            throw DailySummaryCalculator.notADate("date")
        }
        let (day, name, timeZone) = try await reads.health(of: deviceID, familyID: caller.familyID, date: date, errorLimit: DeviceHealth.errorsInRead)
        if request.prefers("text/plain") {
            return Response(
                status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: day.export(deviceName: name, timeZone: timeZone)))
            )
        }
        return try DeviceHealthBody(day).response(from: request, context: context)
    }
}
