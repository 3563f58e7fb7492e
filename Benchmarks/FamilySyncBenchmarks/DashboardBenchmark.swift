import AsyncHTTPClient
import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncProtocol
import Foundation
import NIOCore

/// The dashboard's member page against the API calls it is made of, both in this process against
/// the same in-process server (embedded PostgreSQL, fsync on), alternating round by round:
/// - baseline: a client (the SDK over AsyncHTTPClient) asks what the page asks, as the page asks
///   it (its live token, a poll that does not wait; members and devices together; then
///   summaries, budget status, alerts, schedules and budget records together; then each child
///   device's shield state and open commands);
/// - measured: `GET /app/members/{id}` as a signed-in browser asks it: the same calls answered
///   in process (`InProcessTransport`), the SVG charts and the Mustache page.
enum DashboardBenchmark {
    static func run(_ arguments: [String]) async throws {
        let rounds = arguments.count > 0 ? Int(arguments[0]) ?? 200 : 200
        let inProcess = try await InProcessServer.start()
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        do {
            let anonymous = FamilySyncClient(serverURL: URL(string: inProcess.base)!, httpClient: http)
            let family = try await anonymous.createFamily(.init(name: "Bench parent", platform: .ios, timeZone: "UTC"))
            let parent = anonymous.authenticated(as: family.credential)
            let tablet = try await pair(anonymous, parent, CreatePairingRequest(role: .child, childName: "Bench"), .ipados)
            let memberID = try requireBench(try await tablet.me().memberId, "the member")
            let mac = try await pair(anonymous, parent, CreatePairingRequest(role: .child, memberId: memberID), .macos)
            // A week of usage on both devices: four sessions a day each.
            let now = Date()
            for (device, app) in [(tablet, "khan"), (mac, "duolingo")] {
                var records: [UsageRecordBody] = []
                for day in 0..<7 {
                    for session in 0..<4 {
                        let end = now.addingTimeInterval(TimeInterval(-600 - day * 86_400 - session * 3_600))
                        records.append(UsageRecordBody(
                            recordID: UUID().lowercased, logicalID: session % 2 == 0 ? app : "brawl", displayName: app, category: session % 2 == 0 ? "learning" : "reward",
                            sessionStart: end.addingTimeInterval(-1_200), sessionEnd: end, totalSeconds: 1_200
                        ))
                    }
                }
                _ = try await device.uploadUsage(UsageUploadRequest(timeZone: "UTC", records: records))
            }

            let browser = try await signIn(http, inProcess.base, parent)
            let page = "/app/members/\(memberID.lowercased)"
            let (firstStatus, firstBody) = try await browser.get(page)
            guard firstStatus == 200, firstBody.contains("week-chart") else { throw BenchFailure("the member page answered \(firstStatus)") }

            let clock = ContinuousClock()
            var baseline: [Double] = []
            var measured: [Double] = []
            let children = [try await tablet.me().id, try await mac.me().id]
            let today = DashboardDates.today()
            for _ in 0..<rounds {
                let started = clock.now
                // The page's live token (a poll that does not wait), then its reads.
                _ = try await parent.poll(since: nil, timeout: 0)
                async let members = parent.members()
                async let devices = parent.devices()
                _ = try await (members, devices)
                async let summaries = parent.memberSummaries(of: memberID, from: DashboardDates.daysBefore(today, 6), to: today)
                async let budgets = parent.budgetStatus(of: memberID, date: today)
                async let alerts = parent.alerts(of: memberID, from: DashboardDates.daysBefore(today, 6), to: today)
                async let schedules = parent.schedules(of: memberID)
                async let configured = parent.budgets(of: memberID)
                _ = try await (summaries, budgets, alerts, schedules, configured)
                for child in children {
                    _ = try await parent.shieldState(of: child)
                    _ = try await parent.commands(of: child, status: .open)
                }
                baseline.append(seconds(clock.now - started) * 1000)

                let pageStarted = clock.now
                let (status, _) = try await browser.get(page)
                guard status == 200 else { throw BenchFailure("the member page answered \(status)") }
                measured.append(seconds(clock.now - pageStarted) * 1000)
            }
            baseline.sort()
            measured.sort()
            print("FamilySync dashboard benchmark (\(rounds) rounds, a member with two devices and a week of usage; in-process server, fsync on)")
            print(String(format: "  the page's API calls by a client (baseline): p50 %.2f ms, p99 %.2f ms", percentile(baseline, 0.5), percentile(baseline, 0.99)))
            print(String(format: "  GET /app/members/{id} (the page):            p50 %.2f ms, p99 %.2f ms", percentile(measured, 0.5), percentile(measured, 0.99)))
            print(String(format: "  ratio of p50s, page / baseline: %.2f", percentile(measured, 0.5) / percentile(baseline, 0.5)))
        } catch {
            try? await http.shutdown()
            try? await inProcess.stop()
            throw error
        }
        try await http.shutdown()
        try await inProcess.stop()
    }

    static func pair(_ anonymous: FamilySyncClient, _ parent: FamilySyncClient, _ request: CreatePairingRequest, _ platform: DevicePlatform) async throws -> FamilySyncClient {
        let invitation = try await parent.createPairing(request)
        let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "\(platform.rawValue) device", platform: platform, timeZone: "UTC"))
        _ = try await parent.confirmPairing(invitation.pairing.id)
        return anonymous.authenticated(as: accepted.credential)
    }

    /// A browser signed in by the shown code, the parent taking it.
    static func signIn(_ http: HTTPClient, _ base: String, _ parent: FamilySyncClient) async throws -> CookieSession {
        let browser = CookieSession(http: http, base: base)
        _ = try await browser.get("/app/")
        _ = try await browser.post("/app/sign-in", form: "csrf=\(browser.cookies["fs_csrf"] ?? "")")
        let (_, page) = try await browser.get("/app/sign-in")
        guard let code = page.firstMatch(of: /id="code">([A-Z2-7]{4}-[A-Z2-7]{4})</)?.1 else { throw BenchFailure("no sign-in code") }
        let pairing = try await parent.takeSignIn(code: String(code))
        _ = try await browser.get("/app/sign-in")
        _ = try await parent.confirmPairing(pairing.id)
        return browser
    }
}

/// Cookies kept between requests, as a browser keeps them.
final class CookieSession: @unchecked Sendable {
    let http: HTTPClient
    let base: String
    var cookies: [String: String] = [:]

    init(http: HTTPClient, base: String) {
        self.http = http
        self.base = base
    }

    func get(_ path: String) async throws -> (Int, String) { try await send("GET", path, form: nil) }
    func post(_ path: String, form: String) async throws -> (Int, String) { try await send("POST", path, form: form) }

    private func send(_ method: String, _ path: String, form: String?) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: base + path)
        request.method = .init(rawValue: method)
        if !cookies.isEmpty { request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")) }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: form))
        }
        let response = try await http.execute(request, timeout: .seconds(30))
        for header in response.headers["set-cookie"] {
            let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if pair.count == 2, !pair[1].isEmpty, !header.contains("Max-Age=0") { cookies[String(pair[0])] = String(pair[1]) } else { cookies[String(pair[0])] = nil }
        }
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 8 << 20)))
    }
}

/// The member page's days, as it counts them (UTC here: every bench device is in UTC).
enum DashboardDates {
    static func today() -> String { daysBefore(format(Date()), 0) }

    static func daysBefore(_ date: String, _ days: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        let day = formatter.date(from: date)!.addingTimeInterval(TimeInterval(-days * 86_400))
        return formatter.string(from: day)
    }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }
}

func requireBench<Value>(_ value: Value?, _ what: String = "a value") throws -> Value {
    guard let value else { throw BenchFailure("missing \(what)") }
    return value
}
