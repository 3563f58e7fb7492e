import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import HTTPTypes
import Hummingbird

/// `/app/devices/{id}`: is tracking working on this device (PROTOCOL §10, the tracking seed's
/// diagnostics view): its light, last heartbeat, today's gaps on a timeline, missed
/// notifications, memory, the last errors, and the text export as a download.
extension WebController {
    func addDeviceRoutes(to app: RouterGroup<Context>) {
        app.get("devices/:id", use: devicePage)
            .get("devices/:id/health.txt", use: healthExport)
    }

    @Sendable func devicePage(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        let strings = session.strings
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        let deviceID = try context.pathID()
        let token = try await liveToken(client)
        async let devicesAsked = client.devices()
        async let membersAsked = client.members()
        let (devices, members) = try await (devicesAsked, membersAsked)
        guard let device = devices.first(where: { $0.id == deviceID }) else { throw FamilySyncError.notFound("No such device.") }
        guard device.recordsUsage else {
            throw FamilySyncError(.conflict, "\(device.name) does not record usage, so it has no tracking health.")
        }
        let health = try await client.health(of: deviceID)
        let light = Self.light(health)
        let now = clock.now()
        let timeZone = TimeZone(identifier: device.timeZone) ?? TimeZone(identifier: "UTC")!
        let dayStart = DailySummaryCalculator.interval(of: health.date, in: timeZone)?.start ?? now
        func minute(_ date: Date) -> Int { Int(date.timeIntervalSince(dayStart) / 60) }
        let formatter = DateFormatter()
        formatter.timeZone = timeZone
        formatter.dateFormat = "HH:mm"
        func timeOfDay(_ date: Date) -> String { formatter.string(from: date) }
        let gaps = health.gapsToday.map { gap in
            WebPages.DevicePage.Gap(
                from: timeOfDay(gap.start), to: timeOfDay(gap.end), minutes: gap.durationMinutes,
                kind: strings["gap.\(gap.detectionMethod)"], method: gap.detectionMethod
            )
        }
        let timeline = GapTimelineSVG(
            id: "gaps", title: strings.format("gap.timelineTitle", device.name, health.date), strings: strings,
            gaps: zip(health.gapsToday, gaps).map { gap, row in
                .init(start: minute(gap.start), end: minute(gap.end), method: row.method, label: strings.format("gap.label", row.from, row.to, String(row.minutes), row.kind))
            }
        ).render()
        let page = WebPages.DevicePage(
            frame: session.frame(strings.format("title.tracking", device.name), signedIn: true, liveToken: token), deviceID: deviceID.lowercased, name: device.name,
            platform: Self.platformLabel(device.platform, strings), memberName: device.memberId.flatMap { id in members.first { $0.id == id }?.name } ?? "-",
            timeZone: device.timeZone, date: health.date, status: light.light.rawValue, statusLabel: strings["health.\(light.label)"], lastHeartbeat: strings.ago(health.lastHeartbeatAt, now: now),
            memory: health.memoryUsageMB.map { String(format: "%.1f MB", $0) } ?? strings["memory.notReported"], missedNotifications: health.missedNotifications,
            sequenceResets: health.sequenceResets, errorsToday: health.errorsToday, gapMinutes: health.gapMinutesToday, timeline: timeline, gaps: gaps,
            errors: health.lastErrors.map { error in
                .init(when: strings.ago(error.timestamp, now: now), event: error.eventName, action: error.action,
                      outcome: strings[error.success ? "outcome.succeeded" : "outcome.failed"], description: error.errorDescription ?? "")
            }
        )
        return pages.render("device", page, cookies: session.setCookies)
    }

    /// `GET /app/devices/{id}/health.txt`: the server's diagnostics export of the device's day
    /// (EXTENSION HEALTH, DATA GAPS, ERROR LOG), as a file to keep or send.
    @Sendable func healthExport(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        let deviceID = try context.pathID()
        let text = try await client.healthExport(of: deviceID)
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; charset=utf-8", .contentDisposition: "attachment; filename=\"familysync-health-\(deviceID.lowercased).txt\""],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }
}
