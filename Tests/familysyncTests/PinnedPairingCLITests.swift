import FamilySyncTestSupport
import Foundation
import Testing

/// `serve --pin-in-pairing on` and `familysync pair accept` (PROTOCOL §3.2): a child's device
/// that trusts nothing of the server's but the QR code pairs, keeps the pins in its profile and
/// works with them; a payload whose pin was changed gets nothing from the server.
@Suite struct PinnedPairingCLITests {
    @Test func aDeviceThatTrustsOnlyTheQRCodePairsAndWorks() async throws {
        try await withCLISession(serverArguments: ["--pin-in-pairing", "on"], tls: true) { cli in
            _ = try await cli.ok(["family", "create", "--name", "Mom's iPhone", "--platform", "ios", "--time-zone", "UTC", "--profile", "mom"])
            let invitation = try await cli.ok(["pair", "start", "--child-name", "Johnny", "--profile", "mom", "--json"]).json()
            let payload = try #require(invitation["qrPayload"] as? String)
            #expect(payload.contains("&k="), "\(payload)")
            let untrusting = ["FAMILYSYNC_CA_CERTIFICATE": ""]

            // The same payload with another key pinned: refused before anything is sent.
            let forged = payload.replacingOccurrences(of: #"k=[A-Za-z0-9_-]{43}"#, with: "k=" + String(repeating: "A", count: 43), options: .regularExpression)
            let refused = try await cli.run(["pair", "accept", forged, "--name", "Johnny's iPad", "--platform", "ipados", "--time-zone", "UTC", "--profile", "johnny"], environment: untrusting)
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("is not one this device pinned"), "\(refused.stderr)")

            _ = try await cli.ok(["pair", "accept", payload, "--name", "Johnny's iPad", "--platform", "ipados", "--time-zone", "UTC", "--profile", "johnny"], environment: untrusting)
            _ = try await cli.ok(["pair", "confirm", "--yes", "--profile", "mom"])
            let profiles = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: cli.directory + "/profiles.json"))) as? [String: Any]
            let johnny = try #require((profiles?["profiles"] as? [String: Any])?["johnny"] as? [String: Any])
            #expect((johnny["keyPins"] as? [String])?.count == 1)
            let devices = try await cli.ok(["devices", "--profile", "johnny", "--json"], environment: untrusting)
            #expect(devices.stdout.contains("Johnny's iPad"), "\(devices.stdout)")
        }
    }
}
