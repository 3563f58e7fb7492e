import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// PROTOCOL §10.1 over HTTP: the operator's weekly tracking report from devices' heartbeats,
/// quiet ones (counted on the device's row until a full report folds them in) and full ones.
@Suite struct TrackingReportTests {
    func versionedHeartbeat(_ server: TestServer, _ device: TestDevice, app: String, os: String, errors: [String] = []) async throws {
        var members = [#""heartbeatAt":"\#(Instant.format(server.clock.now()))""#, #""monitoringActive":true"#, #""appVersion":"\#(app)""#, #""osVersion":"\#(os)""#]
        if !errors.isEmpty { members.append(#""errors":[\#(errors.joined(separator: ","))]"#) }
        let reply = try await server.send(.post, "/v1/devices/me/health", credential: device.credential, json: "{" + members.joined(separator: ",") + "}")
        #expect(reply.status == .ok, "\(String(buffer: reply.body))")
    }

    func report(_ server: TestServer, week: String?, accept: String? = nil) async throws -> TestServer.Reply {
        try await server.send(
            .get, "/v1/fleet/tracking-report" + (week.map { "?week=\($0)" } ?? ""), credential: TestServer.operatorToken,
            headers: accept.map { [("Accept", $0)] } ?? []
        )
    }

    @Test func aWeeksFiguresByPlatformAndAppVersion() async throws {
        try await withTestServer(isolation: .database) { server in
            let parent = try await server.createFamily()
            let (_, first) = try await server.pair(by: parent)
            let (_, second) = try await server.pair(by: parent)
            let week = ISOWeek(containing: server.clock.now()).description

            // The first device: a first heartbeat, ten 30 s apart (quiet ones, and the 5-minute
            // refresh), ten minutes of silence (480 s of it past the stale mark), then a report
            // with two events, one failed.
            try await versionedHeartbeat(server, first, app: "2.4.1", os: "18.1")
            for _ in 0..<10 {
                server.clock.advance(by: 30)
                try await versionedHeartbeat(server, first, app: "2.4.1", os: "18.1")
            }
            server.clock.advance(by: 600)
            try await versionedHeartbeat(server, first, app: "2.4.1", os: "18.1", errors: [server.extensionError(success: false), server.extensionError(success: true)])
            // The second: two heartbeats 45 s apart, the second quiet and not folded in yet.
            try await versionedHeartbeat(server, second, app: "2.5.0", os: "18.2")
            server.clock.advance(by: 45)
            try await versionedHeartbeat(server, second, app: "2.5.0", os: "18.2")

            let reply = try await report(server, week: week)
            #expect(reply.status == .ok, "\(String(buffer: reply.body))")
            let body = try reply.decode(TrackingReportBody.self)
            #expect(body.week == week && body.from <= body.to)
            #expect(body.total.devices == 2 && body.total.heartbeats == 14)
            #expect(body.total.monitoredHours == ((945.0 / 36).rounded() / 100))
            #expect(body.total.staleRate == 480.0 / 945)
            #expect(body.total.events == 2 && body.total.failures == 1 && body.total.failureRate == 0.5)
            #expect(body.total.heartbeatGaps == .init(upTo60s: 11, upTo120s: 0, upTo300s: 0, upTo900s: 1, upTo3600s: 0, longer: 0))
            #expect(body.total.averageHeartbeatGapSeconds == 78.8)
            #expect(body.total.missedTargets == ["staleRate", "failureRate"])
            #expect(body.groups.map { "\($0.platform) \($0.appVersion ?? "-")" } == ["ipados 2.4.1", "ipados 2.5.0"])
            let older = try #require(body.groups.first)
            #expect(older.figures.devices == 1 && older.figures.heartbeats == 12 && older.figures.staleRate == 480.0 / 900)
            #expect(older.osVersions == [.init(osVersion: "18.1", devices: 1)])
            let newer = try #require(body.groups.last)
            #expect(newer.figures.heartbeats == 2 && newer.figures.staleRate == 0 && newer.figures.missedTargets == [])

            // As text, with the misses marked.
            let text = String(buffer: try await report(server, week: week, accept: "text/plain").body)
            #expect(text.hasPrefix("TRACKING REPORT \(week)"))
            #expect(text.contains("ipados 2.4.1") && text.contains("50.00 %!") && text.contains("Targets missed (!): the fleet, 1 of 2 groups."), "\(text)")

            // Another week has none of it; the default is the last whole week.
            let next = ISOWeek(containing: server.clock.now().addingTimeInterval(7 * 86_400)).description
            #expect(try await report(server, week: next).decode(TrackingReportBody.self).total.devices == 0)
            let lastWhole = ISOWeek.lastComplete(before: server.clock.now()).description
            #expect(try await report(server, week: nil).decode(TrackingReportBody.self).week == lastWhole)
        }
    }

    /// A device whose heartbeats stopped counts its silence so far as stale, before any heartbeat
    /// closes it.
    @Test func aSilentDevicesStaleTimeCountsBeforeItComesBack() async throws {
        try await withTestServer(isolation: .database) { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            try await versionedHeartbeat(server, child, app: "3.0", os: "18.1")
            server.clock.advance(by: 420)
            let body = try await report(server, week: ISOWeek(containing: server.clock.now()).description).decode(TrackingReportBody.self)
            #expect(body.total.devices == 1 && body.total.monitoredHours == ((420.0 / 36).rounded() / 100))
            #expect(body.total.staleRate == 300.0 / 420)
        }
    }

    @Test func onlyTheOperatorTokenOpensIt() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            for credential in [parent.credential, nil, "fso1." + String(repeating: "x", count: 43), TestServer.operatorToken + "x"] {
                let reply = try await server.send(.get, "/v1/fleet/tracking-report", credential: credential)
                #expect(reply.status == .unauthorized && reply.errorCode == "AUTHENTICATION_REQUIRED")
                #expect(!String(buffer: reply.body).contains(parent.familyID.lowercased))
            }
        }
        var configuration = ServerConfiguration.forTests
        configuration.operatorToken = nil
        try await withTestServer(configuration: configuration) { server in
            let reply = try await server.send(.get, "/v1/fleet/tracking-report", credential: TestServer.operatorToken)
            #expect(reply.status == .notFound && reply.error?.reason.contains("operator token") == true)
        }
    }
}
