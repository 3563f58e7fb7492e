import Crypto
import FamilySyncTestSupport
import Foundation
import StandInAPNs
import Testing

/// `familysync push register` and `unregister` (§12), for trying push by hand.
@Suite(.timeLimit(.minutes(3))) struct PushCommandTests {
    @Test func aDeviceRegistersItsTokenAndRemovesIt() async throws {
        try await withCLISession { cli in
            try await cli.ok(["family", "create", "--name", "Mom's iPhone", "--platform", "ios", "--time-zone", "Europe/Berlin", "--profile", "mom"])
            let token = String(repeating: "9f", count: 32)
            let registered = try await cli.ok(["push", "register", "--token", token, "--topic", "com.example.screentime", "--environment", "sandbox", "--profile", "mom"]).stdout
            #expect(registered.contains("Mom's iPhone gets pushes for com.example.screentime (sandbox) at token 9f9f9f9f…."), "\(registered)")
            let badToken = try await cli.run(["push", "register", "--token", "xyz", "--topic", "com.example.screentime", "--profile", "mom"])
            #expect(badToken.status == 1 && badToken.stderr.contains("64 to 200 hex digits"), "\(badToken.stderr)")
            let badEnvironment = try await cli.run(["push", "register", "--token", token, "--topic", "com.example.screentime", "--environment", "dev", "--profile", "mom"])
            #expect(badEnvironment.status == 2 && badEnvironment.stderr.contains("production or sandbox"), "\(badEnvironment.stderr)")
            let removed = try await cli.ok(["push", "unregister", "--profile", "mom"]).stdout
            #expect(removed.contains("Mom's iPhone gets no pushes."), "\(removed)")
        }
    }
}

/// `familysync serve` with push on, its APNs a stand-in on this machine: a child registers its
/// token from the CLI, and its parent's configuration reaches it as one background push.
@Suite(.timeLimit(.minutes(3))) struct PushServeTests {
    @Test func aParentsConfigurationIsPushedToTheChildsToken() async throws {
        let key = P256.Signing.PrivateKey()
        let apns = try await StandInAPNs.start(teamID: "DEF123GHIJ", keyID: "ABC123DEFG", publicKey: key.publicKey, topic: "com.example.screentime")
        do {
            try await withTemporaryDirectory { directory in
                let keyFile = directory + "/AuthKey_ABC123DEFG.p8", rootFile = directory + "/stand-in.pem"
                try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
                try apns.certificatePEM.write(toFile: rootFile, atomically: true, encoding: .utf8)
                let arguments = [
                    "--apns-key-file", keyFile, "--apns-key-id", "ABC123DEFG", "--apns-team-id", "DEF123GHIJ",
                    "--apns-url", apns.baseURL, "--apns-trust-root-file", rootFile,
                ]
                try await withCLISession(serverArguments: arguments) { cli in
                    try await ClientCommandTests.pairedFamily(cli)
                    let token = String(repeating: "5e", count: 32)
                    try await cli.ok(["push", "register", "--token", token, "--topic", "com.example.screentime", "--environment", "sandbox", "--profile", "johnny"])
                    try await cli.ok(["config", "set", "--app", "app-khan", "--name", "Khan Academy", "--category", "learning", "--profile", "mom"])
                    let push = try #require(try await apns.waitForDeliveries(to: token, count: 1).first)
                    #expect(push.status == 200 && apns.rejections.isEmpty)
                    #expect(push.headers["apns-push-type"] == "background" && push.headers["apns-topic"] == "com.example.screentime")
                }
            }
        } catch {
            try? await apns.shutdown()
            throw error
        }
        try await apns.shutdown()
    }
}
