import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Testing

/// The SDK's calls of §15 over each transport: retention, the audit log, an export to a file
/// (whose counts it reads back), and a refusal as §1.1's error, not a file.
@Suite struct PrivacySDKTests {
    @Test(arguments: TestTransport.allCases) func retentionAuditAndExportThroughTheSDK(_ via: TestTransport) async throws {
        try await withTestServer { server in
            let anonymous = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: via.transport)
            let family = try await anonymous.createFamily(.init(name: "Mom's iPhone", platform: .ios, timeZone: "UTC"))
            let parent = anonymous.authenticated(as: family.credential)
            let invitation = try await parent.createPairing(.init(role: .child, childName: "Johnny"))
            let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "Johnny's iPad", platform: .ipados, timeZone: "UTC"))
            _ = try await parent.confirmPairing(invitation.pairing.id)
            let child = anonymous.authenticated(as: accepted.credential)
            let johnny = try #require(try await child.me().memberId)

            let set = try await parent.setRetention([.usageSessions: 60, .alerts: 30])
            #expect(set.days["usageSessions"] == 60 && set.days["alerts"] == 30 && set.days["audit"] == set.maximumDays)
            #expect(try await parent.retention() == set)
            let events = try await parent.auditEvents(limit: 2)
            #expect(events.events.first?.action == "retention.set" && events.cursor != nil)
            let older = try await parent.auditEvents(cursor: events.cursor, limit: 2)
            #expect(older.events.allSatisfy { Int($0.id)! < Int(events.events.last!.id)! })
            _ = try await parent.summaries(of: accepted.device.id, from: "2026-11-01", to: "2026-11-02")
            let today = DailySummaryCalculator.day(of: server.clock.now(), in: .gmt)
            await server.flushReadCounts()
            #expect(try await parent.auditReads(from: today, to: today).map(\.route) == ["GET /v1/devices/{id}/summaries"])

            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-export-\(UUID().uuidString).tar")
            defer { try? FileManager.default.removeItem(at: file) }
            let counts = try await parent.exportMember(johnny, to: file)
            #expect(counts.complete && counts.lines["members"] == 1 && counts.lines["devices"] == 1)
            #expect(try Data(contentsOf: file).prefix(13) == Data("manifest.json".utf8))
            // Refused: the error, and no file written.
            let refusedFile = file.appendingPathExtension("refused")
            do throws(FamilySyncError) {
                _ = try await child.exportFamily(to: refusedFile)
                Issue.record("a child's export was taken")
            } catch {
                #expect(error.code == .accessDenied)
            }
            #expect(!FileManager.default.fileExists(atPath: refusedFile.path))
            do throws(FamilySyncError) {
                _ = try await child.retention()
                Issue.record("a child read the retention")
            } catch {
                #expect(error.code == .accessDenied)
            }
        }
    }
}
