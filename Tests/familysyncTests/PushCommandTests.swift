import FamilySyncTestSupport
import Foundation
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
