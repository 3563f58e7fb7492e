import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Testing

/// The SDK's calls of §8 and §13 against a live server: a child's two devices in one view, a
/// tracked parent, members managed, and a family recovered with its code.
@Suite struct MemberSDKTests {
    @Test func membersTrackingAndRecoveryThroughTheSDK() async throws {
        try await withTestServer { server in
            let anonymous = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!)
            let family = try await anonymous.createFamily(.init(name: "Mom's iPhone", platform: .ios, timeZone: "UTC"))
            let parent = anonymous.authenticated(as: family.credential)

            // Johnny's iPad makes his member; his Mac joins it.
            func pair(_ request: CreatePairingRequest, platform: DevicePlatform) async throws -> (FamilySyncClient, DeviceBody) {
                let invitation = try await parent.createPairing(request)
                let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "\(platform)", platform: platform, timeZone: "UTC"))
                _ = try await parent.confirmPairing(invitation.pairing.id)
                let device = anonymous.authenticated(as: accepted.credential)
                return (device, try await device.me())
            }
            let (ipad, ipadBody) = try await pair(CreatePairingRequest(role: .child, childName: "Johnny"), platform: .ipados)
            let johnny = try #require(ipadBody.memberId)
            let (mac, macBody) = try await pair(CreatePairingRequest(role: .child, memberId: johnny), platform: .macos)
            #expect(macBody.memberId == johnny)
            let listed = try await parent.members()
            // The test clock stands still: members made at one instant come in id order.
            #expect(Set(listed.map(\.name)) == ["Mom's iPhone", "Johnny"])
            #expect(Set(listed.first { $0.id == johnny }?.deviceIds ?? []) == [ipadBody.id, macBody.id])

            // Usage from both, one combined day; the report by platform, and its CSV.
            let start = server.clock.now().addingTimeInterval(-3600)
            for (device, minutes) in [(ipad, 30), (mac, 15)] {
                _ = try await device.uploadUsage(UsageUploadRequest(records: [UsageRecordBody(
                    recordID: UUID().uuidString, logicalID: "khan", displayName: "Khan", category: "learning",
                    sessionStart: start, sessionEnd: start.addingTimeInterval(TimeInterval(minutes * 60)), totalSeconds: minutes * 60, earnedPoints: 1
                )]))
            }
            let day = DailySummaryCalculator.day(of: start, in: .gmt)
            let combined = try #require(try await mac.memberSummaries(of: johnny, from: day, to: day).first)
            #expect(combined.totalSeconds == 2700)
            #expect(combined.byPlatform.map(\.platform) == [.ipados, .macos])
            #expect(try await parent.memberReport(of: johnny, from: day, to: day).totals.byPlatform?.map(\.seconds) == [1800, 900])
            #expect(try await parent.memberReportCSV(of: johnny, from: day, to: day).contains("platform,macos,,,900,"))

            // The Mac's running total for Khan (§9.2): 25 minutes beats its 15 of sessions.
            let totals = try await mac.uploadTotals(UsageTotalsRequest(date: day, apps: [UsageTotalBody(logicalID: "khan", displayName: "Khan", totalSeconds: 1500)]))
            #expect(totals.summary.totalSeconds == 1500 && totals.summary.totalLearningSeconds == 1500)
            #expect(try await mac.memberSummaries(of: johnny, from: day, to: day).first?.totalSeconds == 3300)

            // A threshold the Mac watches fired: reported twice, one alert.
            let report = ReportAlertRequest(clientAlertID: UUID(), category: "gaming", usedMinutes: 15, message: "15 minutes of games")
            let alert = try await mac.reportAlert(report)
            #expect(try await mac.reportAlert(report) == alert)
            #expect(try await parent.alerts(of: johnny, from: alert.date ?? "", to: alert.date ?? "").map(\.alertID) == [alert.alertID])

            // The parent tracks its own phone; a new member; the Mac moves to it and back.
            #expect(try await parent.setTracked(true).zoneName == "device-\(family.device.id.lowercased)")
            let ann = try await parent.createMember(name: "Ann", role: .child)
            #expect(try await parent.moveDevice(macBody.id, to: ann.id).memberId == ann.id)
            #expect(try await parent.renameMember(ann.id, to: "Annie").name == "Annie")
            #expect(try await parent.moveDevice(macBody.id, to: johnny).memberId == johnny)
            try await parent.deleteMember(ann.id)
            #expect(Set(try await parent.members().map(\.name)) == ["Mom's iPhone", "Johnny"])

            // Every parent device lost: the code brings the family back, once.
            let recovered = try await anonymous.recoverFamily(recoveryCode: family.recoveryCode, device: .init(name: "New phone", platform: .ios, timeZone: "UTC"))
            #expect(recovered.family.id == family.family.id)
            let newParent = anonymous.authenticated(as: recovered.credential)
            #expect(try await newParent.devices().count == 4)
            let again = await failure { try await anonymous.recoverFamily(recoveryCode: family.recoveryCode, device: .init(name: "X", platform: .ios, timeZone: "UTC")) }
            #expect(again?.code == .notFound)
            let fresh = try await newParent.issueRecoveryCode()
            #expect(fresh != recovered.recoveryCode)
            // Without --apple-client-ids the server has no Sign in with Apple.
            #expect(await failure { try await newParent.linkAppleAccount(identityToken: "x.y.z", nonce: "n") }?.code == .notFound)
        }
    }
}
