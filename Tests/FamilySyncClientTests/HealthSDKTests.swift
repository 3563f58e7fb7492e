import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Testing

/// The SDK's side of §10 against a live server: the `HealthReporter` keeps errors through a
/// server it cannot reach and delivers them once, drops one the server refuses without losing
/// the rest, and a parent reads the day and its export.
@Suite struct HealthSDKTests {
    @Test func errorsSurviveAnOfflinePeriodAndArriveOnce() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let base = URL(string: "http://127.0.0.1:\(server.port)")!
                let anonymous = FamilySyncClient(serverURL: base)
                let family = try await anonymous.createFamily(.init(name: "Mom's iPhone", platform: .ios, timeZone: "UTC"))
                let parent = anonymous.authenticated(as: family.credential)
                let invitation = try await parent.createPairing(CreatePairingRequest(role: .child, childName: "Johnny"))
                let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "iPad", platform: .ipados, timeZone: "UTC"))
                _ = try await parent.confirmPairing(invitation.pairing.id)
                let child = anonymous.authenticated(as: accepted.credential)
                let reporter = HealthReporter(store: FileSyncStateStore(url: URL(fileURLWithPath: directory + "/state.json")))

                func error(_ action: String, _ event: String) -> ExtensionErrorBody {
                    ExtensionErrorBody(id: UUID(), timestamp: server.clock.now(), eventName: event, action: action, success: false, errorDescription: "failed")
                }
                // Offline: the heartbeat fails, the errors stay.
                try await reporter.record(error("record_usage", "intervalDidStart"))
                try await reporter.record(error("post_notification", "thresholdReached"))
                let offline = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(try freePort())")!, credential: accepted.credential)
                await #expect(throws: FamilySyncError.self) { try await reporter.beat(with: offline, monitoringActive: true, at: server.clock.now()) }
                #expect(try await reporter.pending().count == 2)

                // Back online, with one entry the server refuses: it alone is dropped.
                try await reporter.record(error("explode", "bad"))
                let answer = try await reporter.beat(with: child, monitoringActive: true, notificationSequence: 1, at: server.clock.now())
                #expect(answer.status == "healthy" && answer.errorsToday == 2)
                #expect(try await reporter.pending().isEmpty)
                // Nothing is sent twice.
                #expect(try await reporter.beat(with: child, monitoringActive: true, notificationSequence: 2, at: server.clock.now()).errorsToday == 2)

                let read = try await parent.health(of: accepted.device.id)
                #expect(read.errorsToday == 2 && Set(read.lastErrors.map(\.action)) == ["record_usage", "post_notification"])
                let export = try await parent.healthExport(of: accepted.device.id)
                #expect(export.contains("EXTENSION HEALTH") && export.contains("DATA GAPS") && export.contains("ERROR LOG"))
            }
        }
    }
}
