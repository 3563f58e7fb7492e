import AsyncHTTPClient
import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Data minimization in logs (docs/privacy.md): a family's whole walkthrough against a
/// server logging JSON at debug with tracing on (to a collector nobody runs, so the exporter's own
/// warnings are in the log too), with every secret it hands out or takes in then looked for in
/// every line of its log; and what a child did (app names, usage) in no line at info or above.
@Suite(.timeLimit(.minutes(3))) struct SecretsInLogsTests {
    /// What is never logged at any level, and what a line at info or above never names.
    struct Watched {
        var secrets: [(what: String, text: String)] = []
        var childsData: [(what: String, text: String)] = []

        mutating func secret(_ what: String, _ text: String) {
            secrets.append((what, text))
            // A token's random part alone gives it away too (its ids are not secret).
            if let last = text.split(separator: ".").last, last.count >= 16, last.count < text.count {
                secrets.append((what + " (its secret part)", String(last)))
            }
        }
    }

    @Test func noSecretInAnyLineAndNoChildsDataAtInfo() async throws {
        try await withTemporaryDirectory { directory in
            let database = try await TestPostgres.shared.makeDatabase(isolation: .database)
            let port = try freePort()
            // Apple's keys from a port nobody listens on: a token is taken in and refused there.
            let server = try await ServerProcess.start(
                [
                    "serve", "--port", "\(port)", "--log-level", "debug", "--log-format", "json",
                    "--apple-client-ids", "com.example.screentime", "--apple-jwks-url", "http://127.0.0.1:\(try freePort())/keys",
                    "--otlp-endpoint", "http://127.0.0.1:\(try freePort())",
                ],
                port: port, environment: ["DATABASE_URL": database.connectionString], workingDirectory: directory
            )
            defer { server.signal(SIGKILL) }
            try await server.waitUntilReady()
            let watched = try await Self.walkThrough(server.client)
            try await Self.sendTraceHeaders(to: port, beside: try #require(watched.secrets.first { $0.what == "the parent's credential" }).text)

            let lines = server.stderr.split(separator: "\n").map(String.init)
            // The log is there to be read: debug lines of the requests made, each a JSON object.
            let objects = lines.compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }
            #expect(objects.count == lines.count, "a line that is not JSON")
            #expect(objects.contains { $0["level"] as? String == "debug" }, "nothing at debug: the scan would prove nothing")
            #expect(lines.contains { $0.contains("/v1/usage") } && lines.contains { $0.contains("/pin") }, "the requests are not in the log")
            for (number, line) in lines.enumerated() {
                for (what, text) in watched.secrets where line.contains(text) {
                    Issue.record("line \(number + 1) holds \(what): \(line)")
                }
            }
            let loud: Set<String> = ["info", "notice", "warning", "error", "critical"]
            for (number, (line, object)) in zip(lines, objects).enumerated() where loud.contains(object["level"] as? String ?? "") {
                for (what, text) in watched.childsData where line.contains(text) {
                    Issue.record("line \(number + 1), at \(object["level"] ?? ""), names \(what): \(line)")
                }
            }
        }
    }

    /// Trace headers a client made up, next to its credential. swift-otel logged the whole carrier
    /// of a `traceparent` it could not read, `Authorization` included.
    static func sendTraceHeaders(to port: Int, beside credential: String) async throws {
        let headers = [
            ("00-not-a-trace-01", nil), (String(repeating: "f", count: 300), nil),
            ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "not a trace state,,="),
            ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "vendor=value"),
        ]
        for (traceparent, tracestate) in headers {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/devices")
            request.headers.add(name: "Authorization", value: "Bearer \(credential)")
            request.headers.add(name: "traceparent", value: traceparent)
            if let tracestate { request.headers.add(name: "tracestate", value: tracestate) }
            let response = try await AsyncHTTPClientTransport.sharedHTTPClient.execute(request, timeout: .seconds(30))
            #expect(response.status == .ok, "traceparent \(traceparent), tracestate \(tracestate ?? "none")")
            _ = try await response.body.collect(upTo: 1 << 20)
        }
    }

    /// Everything a family does that carries a secret or a child's data, each secret kept.
    static func walkThrough(_ anonymous: FamilySyncClient) async throws -> Watched {
        var watched = Watched()
        let created = try await anonymous.createFamily(.init(name: "Mom's iPhone", platform: .ios, timeZone: "Europe/Berlin"))
        watched.secret("the parent's credential", created.credential)
        watched.secret("the recovery code", created.recoveryCode)
        let parent = anonymous.authenticated(as: created.credential)

        // Pairing: a token in a QR payload, a wrong one tried first.
        let invitation = try await parent.createPairing(.init(role: .child, childName: "Johnny"))
        let token = try #require(URLComponents(string: invitation.qrPayload)?.queryItems?.first { $0.name == "t" }?.value)
        watched.secret("the pairing token", token)
        let device = DeviceRegistration(name: "Johnny's iPad", platform: .ipados, timeZone: "Europe/Berlin")
        let wrongToken = "fp1.\(created.family.id.lowercased).\(SecretToken.randomSecret())"
        watched.secret("a wrong pairing token", wrongToken)
        await #expect(throws: FamilySyncError.self) { try await anonymous.acceptPairing(id: invitation.pairing.id, token: wrongToken, device: device) }
        let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: device)
        watched.secret("the child's credential", accepted.credential)
        _ = try await parent.confirmPairing(invitation.pairing.id)
        let child = anonymous.authenticated(as: accepted.credential)
        let childMember = try #require(try await child.me().memberId)

        // A credential that is wrong, one rotated away, and the new one.
        let forged = "fs1.\(created.family.id.lowercased).\(accepted.device.id.lowercased).\(SecretToken.randomSecret())"
        watched.secret("a forged credential", forged)
        await #expect(throws: FamilySyncError.self) { try await anonymous.authenticated(as: forged).me() }
        let rotated = try await child.rotateCredential()
        watched.secret("a rotated credential", rotated)
        let childNow = anonymous.authenticated(as: rotated)

        // What the child did: its apps by name and its usage.
        watched.childsData = [("an app's name", "Zzyzx Quest"), ("an app's id", "app-zzyzx"), ("another app's name", "Quillfeather Reader")]
        _ = try await parent.saveAppConfiguration(
            [
                "logicalID": .string("app-zzyzx"), "displayName": .string("Zzyzx Quest"), "category": .string("reward"),
                "isEnabled": .bool(true), "blockingEnabled": .bool(true),
            ],
            named: "app-zzyzx", in: Device.zoneName(forChild: accepted.device.id)
        )
        let start = Date().addingTimeInterval(-3_600)
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        _ = try await childNow.uploadUsage(UsageUploadRequest(timeZone: "Europe/Berlin", records: [
            UsageRecordBody(recordID: UUID().uuidString, logicalID: "app-zzyzx", displayName: "Zzyzx Quest", category: "reward",
                            sessionStart: start, sessionEnd: start.addingTimeInterval(600), totalSeconds: 600),
            UsageRecordBody(recordID: UUID().uuidString, logicalID: "app-quill", displayName: "Quillfeather Reader", category: "learning",
                            sessionStart: start.addingTimeInterval(900), sessionEnd: start.addingTimeInterval(1_500), totalSeconds: 600),
        ]))
        _ = try await parent.summaries(
            of: accepted.device.id,
            from: DailySummaryCalculator.day(of: start.addingTimeInterval(-86_400), in: berlin),
            to: DailySummaryCalculator.day(of: start.addingTimeInterval(86_400), in: berlin)
        )

        // The parent PIN: set, checked right and wrong.
        watched.secret("the PIN", "73950284")
        watched.secret("a wrong PIN", "61842753")
        try await parent.setParentPIN("73950284", of: childMember)
        #expect(try await childNow.verifyParentPIN("73950284", of: childMember))
        #expect(try await childNow.verifyParentPIN("61842753", of: childMember) == false)

        // A push token (registered with push off too, for when it is turned on).
        let pushToken = String(repeating: "a1b2c3d4", count: 8)
        watched.secret("a push token", pushToken)
        try await childNow.registerPush(token: pushToken, topic: "com.example.screentime")

        // Recovery: a new code, the family recovered with it on a new device, a wrong code tried.
        let newCode = try await parent.issueRecoveryCode()
        watched.secret("a new recovery code", newCode)
        let recovered = try await anonymous.recoverFamily(recoveryCode: newCode, device: .init(name: "Mom's new iPhone", platform: .ios, timeZone: "Europe/Berlin"))
        watched.secret("the recovered device's credential", recovered.credential)
        let wrongCode = String(newCode.reversed())
        watched.secret("a wrong recovery code", wrongCode)
        await #expect(throws: FamilySyncError.self) {
            try await anonymous.recoverFamily(recoveryCode: wrongCode, device: .init(name: "Someone", platform: .ios, timeZone: "UTC"))
        }

        // Sign-in by a shown code: the code, the device's secret, the credential it claims.
        let signIn = try await anonymous.startSignIn(device: .init(name: "Chrome on Linux", platform: .web, timeZone: "Europe/Berlin"))
        watched.secret("the sign-in secret", signIn.secret)
        watched.secret("the sign-in code", signIn.signIn.code)
        watched.secret("the sign-in code, typed", signIn.signIn.code.replacingOccurrences(of: "-", with: ""))
        let taken = try await parent.takeSignIn(code: signIn.signIn.code)
        let claimed = try await anonymous.claimSignIn(secret: signIn.secret)
        watched.secret("the signed-in browser's credential", try #require(claimed.credential))
        _ = try await parent.confirmPairing(taken.id)
        _ = try await anonymous.authenticated(as: try #require(claimed.credential)).me()

        // An Apple identity token, refused (its keys cannot be fetched), to recover and to link.
        let appleToken = [#"{"alg":"ES256","kid":"k-test"}"#, #"{"iss":"https://appleid.apple.com","sub":"001234.abc"}"#]
            .map { Data($0.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "") }
            .joined(separator: ".") + "." + SecretToken.randomSecret()
        watched.secret("an Apple identity token", appleToken)
        await #expect(throws: FamilySyncError.self) {
            try await anonymous.recoverFamily(appleIdentityToken: appleToken, nonce: "n-0123456789", device: .init(name: "Someone", platform: .ios, timeZone: "UTC"))
        }
        await #expect(throws: FamilySyncError.self) { try await parent.linkAppleAccount(identityToken: appleToken, nonce: "n-0123456789") }
        return watched
    }
}
