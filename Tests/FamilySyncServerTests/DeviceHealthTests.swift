import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

extension TestServer {
    /// How many times the device's `health` record was written, from the parent's change feed.
    func healthWrites(of device: TestDevice, by parent: TestDevice, since token: String?) async throws -> (count: Int, token: String) {
        let zone = Device.zoneName(forChild: device.deviceID)
        var count = 0
        var next = token
        repeat {
            let query = next.map { "?since=\($0)" } ?? ""
            let page = try await send(.get, "/v1/zones/\(zone)/changes\(query)", credential: parent.credential).decode(ZoneChangesResponse.self)
            count += page.records.filter { $0.recordName == DeviceHealth.recordName }.count
            next = page.changeToken
            if !page.moreComing { break }
        } while true
        return (count, next ?? "")
    }
}

/// PROTOCOL §10 over HTTP: heartbeats, the `health` record and how often it is written, stale
/// devices, missed notifications, the error log, tracking alerts, the day's health and its export.
@Suite struct DeviceHealthTests {
    /// Heartbeats every 30 s over three simulated hours write the record when the device first
    /// reports and then at most every 5 minutes: a few dozen writes, not 360.
    @Test func heartbeatsDoNotFloodTheChangeFeed() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let first = try await server.heartbeat(child, sequence: 1, memory: 6)
            #expect(first.status == .ok, "\(String(buffer: first.body))")
            let body = try first.decode(DeviceHealthBody.self)
            #expect(body.status == "healthy" && body.memoryUsageMB == 6 && body.lastHeartbeatAt == server.clock.now())
            var (writes, token) = try await server.healthWrites(of: child, by: parent, since: nil)
            #expect(writes == 1)
            // The feed keeps a record's latest version: it is read after each beat to count writes.
            writes = 0
            for beat in 1...360 {
                server.clock.advance(by: 30)
                let reply = try await server.heartbeat(child, sequence: beat + 1)
                #expect(reply.status == .ok)
                #expect(try reply.decode(DeviceHealthBody.self).lastHeartbeatAt == server.clock.now())
                let (count, next) = try await server.healthWrites(of: child, by: parent, since: token)
                writes += count
                token = next
            }
            // 3 hours / 5 minutes = 36 refreshes; each beat after the refresh interval writes one.
            #expect(writes >= 30 && writes <= 37, "\(writes) writes for 360 heartbeats")
            let health = try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/health", credential: parent.credential).decode(DeviceHealthBody.self)
            #expect(health.status == "healthy" && health.missedNotifications == 0 && health.gapMinutesToday == 0)
        }
    }

    /// Heartbeats stop: the detector turns the device stale past 120 s (each device once, however
    /// many instances run it at once), which writes the record and so wakes the parent's poll.
    @Test func aDeviceWhoseHeartbeatsStopTurnsStaleOnce() async throws {
        try await withTestServer(isolation: .database) { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let (_, other) = try await server.pair(by: parent)
            _ = try await server.heartbeat(child)
            _ = try await server.heartbeat(other)
            server.clock.advance(by: 100)
            #expect(try await server.detectStale().stale == 0)
            let changes = try await server.send(.get, "/v1/changes", credential: parent.credential).decode(DatabaseChangesResponse.self)
            server.clock.advance(by: 30)
            // Four detectors at once, as four instances would run: each device judged once.
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 { group.addTask { try await server.detectStale().stale } }
                return try await group.reduce(0, +)
            }
            #expect(counts == 2)
            let poll = try await server.send(.get, "/v1/poll?since=\(changes.changeToken)&timeout=0", credential: parent.credential).decode(PollResponse.self)
            #expect(poll.changed)
            let health = try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/health", credential: parent.credential).decode(DeviceHealthBody.self)
            #expect(health.status == "stale" && health.heartbeatGapSeconds == 130)
            // A heartbeat again: healthy, and no gap (130 s is under 300 s).
            let back = try await server.heartbeat(child).decode(DeviceHealthBody.self)
            #expect(back.status == "healthy" && back.gapsToday.isEmpty)
        }
    }

    /// Sequence numbers: skipped ones are missed, a lower one is a restart; monitoring off is
    /// `inactive`; the error log is kept once per id, the newest 100.
    @Test func notificationsErrorsAndMonitoringOff() async throws {
        try await withTestServer(isolation: .database) { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            _ = try await server.heartbeat(child, sequence: 10)
            server.clock.advance(by: 30)
            #expect(try await server.heartbeat(child, sequence: 14).decode(DeviceHealthBody.self).missedNotifications == 3)
            server.clock.advance(by: 30)
            let reset = try await server.heartbeat(child, sequence: 2).decode(DeviceHealthBody.self)
            #expect(reset.sequenceResets == 1 && reset.missedNotifications == 3)

            let id = UUID()
            let withErrors = try await server.heartbeat(child, errors: [server.extensionError(id), server.extensionError(action: "x-custom", success: true)])
            #expect(withErrors.status == .ok, "\(String(buffer: withErrors.body))")
            #expect(try withErrors.decode(DeviceHealthBody.self).errorsToday == 2)
            // The same error again: stored once.
            #expect(try await server.heartbeat(child, errors: [server.extensionError(id)]).decode(DeviceHealthBody.self).errorsToday == 2)
            // 120 more: the newest 100 are kept.
            for batch in 0..<2 {
                let errors = (0..<60).map { index in server.extensionError(secondsAgo: TimeInterval(1000 - batch * 60 - index)) }
                #expect(try await server.heartbeat(child, errors: errors).status == .ok)
            }
            let day = try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/health", credential: parent.credential).decode(DeviceHealthBody.self)
            #expect(day.errorsToday == 100 && day.lastErrors.count == 20)

            // The fleet's figures on /metrics (the registry is the test process's, shared by the
            // suites running at once: the series are there, with counts of at least these).
            let metrics = String(buffer: try await server.send(.get, "/metrics").body)
            for series in [
                #"familysync_extension_events_total{action="record_usage",outcome="failure"}"#, #"familysync_extension_events_total{action="custom",outcome="success"}"#,
                "familysync_missed_notifications_total", "familysync_sequence_resets_total", "familysync_heartbeat_gap_seconds_count",
            ] {
                let line = metrics.split(separator: "\n").first { $0.hasPrefix(series + " ") }
                #expect((line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0) >= 1, "\(series) in /metrics")
            }

            let off = try await server.heartbeat(child, active: false).decode(DeviceHealthBody.self)
            #expect(off.status == "inactive")
            server.clock.advance(by: 3600)
            #expect(try await server.detectStale().stale == 0, "monitoring off is never stale")
        }
    }

    /// Heartbeat gaps past 15 minutes in a day make one tracking alert: from a heartbeat that closes
    /// a gap, or from the detector while heartbeats are still missing; not again that day.
    @Test func trackingAlertsOncePerDeviceDay() async throws {
        try await withTestServer(isolation: .database) { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let (_, quiet) = try await server.pair(by: parent)
            let member = try await server.memberID(of: child)
            _ = try await server.heartbeat(child)
            _ = try await server.heartbeat(quiet)
            // 10 minutes without: a gap, no alert.
            server.clock.advance(by: 600)
            #expect(try await server.heartbeat(child).decode(DeviceHealthBody.self).gapMinutesToday == 10)
            // 7 more: 17 minutes, the alert, made by the store in the heartbeat's transaction.
            server.clock.advance(by: 420)
            #expect(try await server.heartbeat(child).decode(DeviceHealthBody.self).gapMinutesToday == 17)
            let day = DailySummaryCalculator.day(of: server.clock.now(), in: .gmt)
            let alerts = try await server.send(.get, "/v1/members/\(member.lowercased)/alerts?from=\(day)&to=\(day)", credential: parent.credential).decode(AlertList.self).alerts
            #expect(alerts.map(\.kind) == ["tracking"] && alerts.first?.usedMinutes == 17 && alerts.first?.deviceId == child.deviceID)
            // Another gap the same day: no second alert.
            server.clock.advance(by: 1200)
            _ = try await server.heartbeat(child)
            #expect(try await server.send(.get, "/v1/members/\(member.lowercased)/alerts?from=\(day)&to=\(day)", credential: parent.credential).decode(AlertList.self).alerts.count == 1)

            // The quiet device has sent nothing for 37 minutes: the detector makes its alert, once.
            _ = try await server.heartbeat(child)
            let first = try await server.detectStale()
            #expect(first.alerts.map(\.deviceID) == [quiet.deviceID])
            server.clock.advance(by: 60)
            _ = try await server.heartbeat(child)
            #expect(try await server.detectStale().alerts.isEmpty)
        }
    }

    /// The day as a parent reads it, and the plain-text export with its three sections.
    @Test func theExportHasThreeSections() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            _ = try await server.heartbeat(child, memory: 7, errors: [server.extensionError()])
            let reply = try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/health", credential: parent.credential, headers: [("Accept", "text/plain")])
            #expect(reply.status == .ok && reply.headers[.contentType]?.hasPrefix("text/plain") == true)
            let text = String(buffer: reply.body)
            #expect(text.contains("\nEXTENSION HEALTH\nstatus: healthy\n") && text.contains("\nDATA GAPS\nnone\n") && text.contains("\nERROR LOG\n"), "\(text)")
            #expect(text.contains("record_usage  failed  intervalDidStart: could not write (5 MB)"))
            // A day with nothing, and a device that never reported.
            let (_, silent) = try await server.pair(by: parent)
            let unknown = try await server.send(.get, "/v1/devices/\(silent.deviceID.lowercased)/health?date=2026-11-01", credential: parent.credential).decode(DeviceHealthBody.self)
            #expect(unknown.status == "unknown" && unknown.lastHeartbeatAt == nil && unknown.date == "2026-11-01")
        }
    }
}
