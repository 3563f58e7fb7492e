import AsyncHTTPClient
import FamilySyncCore
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
@testable import FamilySyncWeb
import Foundation
import HTTPTypes
import NIOCore
import Synchronization
import Testing

/// A browser as HTTP sees it: it keeps cookies, follows no redirect by itself, and sends forms.
final class CookieBrowser: Sendable {
    let base: String
    let jar = Mutex<[String: String]>([:])
    static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5), read: .seconds(30)))
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    struct Page {
        var status: Int
        /// Names in lower case.
        var headers: [(name: String, value: String)]
        var html: String
        var setCookies: [String] { headers.filter { $0.name == "set-cookie" }.map(\.value) }
        var location: String? { header("location") }
        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
    }

    init(port: Int) { base = "http://127.0.0.1:\(port)" }

    func get(_ path: String) async throws -> Page { try await send("GET", path, form: nil) }

    /// A form posted as a browser posts it; `csrf` nil sends the page's token, "" none at all.
    func post(_ path: String, csrf: String? = nil) async throws -> Page {
        let token = csrf ?? jar.withLock { $0[WebCookies.csrf] } ?? ""
        return try await send("POST", path, form: token.isEmpty ? "" : "csrf=\(token)")
    }

    func send(_ method: String, _ path: String, form: String?, headers: [(String, String)] = []) async throws -> Page {
        var request = HTTPClientRequest(url: base + path)
        request.method = .init(rawValue: method)
        request.headers.add(name: "User-Agent", value: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let cookie = jar.withLock { $0.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        if !cookie.isEmpty { request.headers.add(name: "Cookie", value: cookie) }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: form))
        }
        let response = try await Self.http.execute(request, timeout: .seconds(30))
        let page = Page(status: Int(response.status.code), headers: response.headers.map { ($0.name.lowercased(), $0.value) }, html: String(buffer: try await response.body.collect(upTo: 8 << 20)))
        jar.withLock { jar in
            for header in page.setCookies {
                let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(pair[0]), value = pair.count > 1 ? String(pair[1]) : ""
                if value.isEmpty || header.contains("Max-Age=0") { jar[name] = nil } else { jar[name] = value }
            }
        }
        return page
    }

    func cookie(_ name: String) -> String? { jar.withLock { $0[name] } }
}

/// The web dashboard over HTTP: sign-in by a shown code, the cookie's flags, the CSP, CSRF
/// refusals, and the family page built from the API's own answers.
@Suite struct WebDashboardTests {
    @Test func aBrowserSignsInAsAParentAndSeesItsFamily() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let browser = CookieBrowser(port: server.port)

            let start = try await browser.get("/app/")
            #expect(start.status == 200)
            #expect(start.html.contains("Show a sign-in code"))
            #expect(start.header("content-security-policy") == WebSecurityHeadersMiddleware.contentSecurityPolicy)
            #expect(start.setCookies.contains { $0.hasPrefix("fs_csrf=") && $0.contains("HttpOnly") && $0.contains("SameSite=Strict") && $0.contains("Path=/app") })
            #expect(!start.setCookies.contains { $0.contains("Secure") }, "plain HTTP: no Secure flag")

            let started = try await browser.post("/app/sign-in")
            #expect(started.status == 303 && started.location == "/app/sign-in")
            #expect(started.setCookies.contains { $0.hasPrefix("fs_sign_in=fw1.") && $0.contains("HttpOnly") && $0.contains("Max-Age=600") })

            let waiting = try await browser.get("/app/sign-in")
            #expect(waiting.status == 200)
            let code = String(try #require(waiting.html.firstMatch(of: /id="code">([A-Z2-7]{4}-[A-Z2-7]{4})</)).1)
            #expect(waiting.html.contains(#"<meta http-equiv="refresh" content="4">"#))
            #expect(waiting.html.contains("<svg"), "qrencode draws the QR code")

            // The parent takes the code from its device.
            let pairing = try await server.send(.post, "/v1/pairings/sign-in", credential: parent.credential, body: TakeSignInRequest(code: code)).decode(PairingBody.self)
            let claimed = try await browser.get("/app/sign-in")
            #expect(claimed.status == 303 && claimed.location == "/app/sign-in")
            let sessionToken = try #require(browser.cookie(WebCookies.session))
            #expect(claimed.setCookies.contains { $0.hasPrefix("fs_session=fws1.") && $0.contains("HttpOnly") && $0.contains("SameSite=Strict") })
            // The cookie is the dashboard's session, not the device's credential: no /v1 route takes it.
            #expect(try await server.send(.get, "/v1/devices/me", credential: sessionToken).status == .unauthorized)
            #expect(browser.cookie(WebCookies.signIn) == nil)
            let emojiPage = try await browser.get("/app/sign-in")
            #expect(emojiPage.html.contains(try #require(pairing.verificationEmoji).joined()))

            // Confirmed on the parent's device: the family page.
            _ = try await server.send(.post, "/v1/pairings/\(pairing.id.lowercased)/confirm", credential: parent.credential)
            #expect(try await browser.get("/app/sign-in").location == "/app/")
            let family = try await browser.get("/app/")
            #expect(family.status == 200)
            #expect(family.html.contains("Your family"))
            // Every device the API lists to the parent, this browser among them.
            let devices = try await server.send(.get, "/v1/devices", credential: parent.credential).decode(DeviceList.self).devices
            let me = try #require(devices.first { $0.platform == .web })
            #expect(me.platform == .web && me.role == .parent && me.status == .active)
            #expect(Set(devices.map(\.id)) == [parent.deviceID, child.deviceID, me.id])
            for device in devices {
                #expect(family.html.contains(device.name.replacingOccurrences(of: "'", with: "&#39;")), "\(device.name)")
            }
            #expect(family.html.contains("Chrome on Linux"))
            // Platforms in words; a child that never reported is unknown, a grey light, not red.
            #expect(family.html.contains("<td>iPadOS</td>") && family.html.contains("<td>Web</td>") && !family.html.contains("<td>ipados</td>"))
            #expect(family.html.contains("light unknown"))
            let css = try await browser.get("/app/app.css").html
            #expect(css.contains(".light.unknown { background: var(--muted); }") && css.contains(".light.stale { background: var(--bad); }"))

            // Signing out revokes the browser's device and clears its cookies.
            let signedOut = try await browser.post("/app/sign-out")
            #expect(signedOut.status == 303 && signedOut.location == "/app/")
            #expect(browser.cookie(WebCookies.session) == nil)
            let after = try await server.send(.get, "/v1/devices", credential: parent.credential).decode(DeviceList.self).devices
            #expect(after.first { $0.id == me.id }?.status == .revoked)
            // The session ended with it: the old cookie signs nobody in.
            let replayed = try await browser.send("GET", "/app/", form: nil, headers: [("Cookie", "fs_session=\(sessionToken)")])
            #expect(replayed.html.contains("id=\"start\""))
        }
    }

    /// The browser shows a code, the parent takes it, the browser claims its credential.
    static func signIn(_ browser: CookieBrowser, _ server: TestServer, by parent: TestDevice) async throws -> PairingBody {
        _ = try await browser.get("/app/")
        _ = try await browser.post("/app/sign-in")
        let code = String(try #require(try await browser.get("/app/sign-in").html.firstMatch(of: /id="code">([A-Z2-7]{4}-[A-Z2-7]{4})</)).1)
        let pairing = try await server.send(.post, "/v1/pairings/sign-in", credential: parent.credential, body: TakeSignInRequest(code: code)).decode(PairingBody.self)
        _ = try await browser.get("/app/sign-in")
        return pairing
    }

    /// A browser signed in as a parent device of `parent`'s family, confirmed by `parent`.
    static func signedIn(_ server: TestServer, by parent: TestDevice) async throws -> CookieBrowser {
        let browser = CookieBrowser(port: server.port)
        let pairing = try await signIn(browser, server, by: parent)
        _ = try await server.send(.post, "/v1/pairings/\(pairing.id.lowercased)/confirm", credential: parent.credential)
        return browser
    }

    @Test func aFormWithoutTheTokenChangesNothing() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let browser = try await Self.signedIn(server, by: parent)
            let before = try await server.fingerprint()
            for token in ["", "forged", String(repeating: "A", count: 43)] {
                let refused = try await browser.post("/app/sign-out", csrf: token)
                #expect(refused.status == 403, "token '\(token)'")
                #expect(refused.html.contains("came from another site"))
                #expect(refused.header("content-security-policy") == WebSecurityHeadersMiddleware.contentSecurityPolicy)
                #expect(refused.header("content-type")?.hasPrefix("text/html") == true)
            }
            #expect(try await server.fingerprint() == before, "a refused form changes nothing")
            #expect(try await browser.get("/app/").html.contains("Your family"), "still signed in")
        }
    }

    /// A dashboard session ends on the server: a week idle, or 30 days old however often used.
    @Test func aSessionEndsIdleAfterAWeekAndAtThirtyDays() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let idle = try await Self.signedIn(server, by: parent)
            #expect(try await idle.get("/app/").html.contains("Your family"))
            server.clock.advance(by: 6 * 86_400)
            let used = try await Self.signedIn(server, by: parent)
            server.clock.advance(by: 86_400)
            #expect(try await idle.get("/app/").html.contains("id=\"start\""), "a week idle: signed out")
            // Used every six days, the other still ends 30 days after it began (a day ago).
            #expect(try await used.get("/app/").html.contains("Your family"))
            for _ in 0..<4 {
                server.clock.advance(by: 6 * 86_400)
                #expect(try await used.get("/app/").html.contains("Your family"))
            }
            server.clock.advance(by: 5 * 86_400 - 3600)
            #expect(try await used.get("/app/").html.contains("Your family"), "an hour short of 30 days")
            server.clock.advance(by: 3600)
            #expect(try await used.get("/app/").html.contains("id=\"start\""), "30 days: signed out")
        }
    }

    /// A browser signed in before the dashboard had sessions holds its device's credential as its
    /// cookie: its first family page revokes that device and clears the cookie.
    @Test func aCookieHoldingADeviceCredentialIsEnded() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, old) = try await server.pair(by: parent, role: .parent)
            let browser = CookieBrowser(port: server.port)
            let page = try await browser.send("GET", "/app/", form: nil, headers: [("Cookie", "fs_session=\(old.credential)")])
            #expect(page.html.contains("id=\"start\""))
            #expect(page.setCookies.contains { $0.hasPrefix("fs_session=;") || $0.hasPrefix("fs_session=") && $0.contains("Max-Age=0") })
            #expect(try await server.send(.get, "/v1/devices/me", credential: old.credential).status == .unauthorized)
        }
    }

    /// A signed-in browser's form token is its session's: a token planted with a cookie (anyone
    /// who can set a cookie for the host, a sibling subdomain say, knows the value) is refused, and
    /// the token from before the sign-in or after the sign-out is not the session's.
    @Test func theFormTokenIsBoundToTheSession() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let browser = CookieBrowser(port: server.port)
            _ = try await browser.get("/app/")
            let beforeSignIn = try #require(browser.cookie(WebCookies.csrf))
            let pairing = try await Self.signIn(browser, server, by: parent)
            _ = try await server.send(.post, "/v1/pairings/\(pairing.id.lowercased)/confirm", credential: parent.credential)
            let bound = try #require(browser.cookie(WebCookies.csrf))
            #expect(bound != beforeSignIn, "the sign-in gives the forms a new token")

            let before = try await server.fingerprint()
            let session = try #require(browser.cookie(WebCookies.session))
            for planted in [beforeSignIn, "tok"] {
                let refused = try await browser.send(
                    "POST", "/app/sign-out", form: "csrf=\(planted)", headers: [("Cookie", "fs_session=\(session); fs_csrf=\(planted)")]
                )
                #expect(refused.status == 403, "planted '\(planted)'")
            }
            #expect(try await server.fingerprint() == before, "a refused form changes nothing")
            // A page of the signed-in browser sets the cookie back to the session's token.
            _ = try await browser.get("/app/")
            #expect(browser.cookie(WebCookies.csrf) == bound)
            let signedOut = try await browser.post("/app/sign-out")
            #expect(signedOut.status == 303)
            #expect(browser.cookie(WebCookies.csrf) != bound, "signing out gives the forms a new token")
        }
    }

    /// A page that cannot be shown is an HTML page with §1.1's status and the same headers; another
    /// family's member is as unknown as one that does not exist.
    @Test func failuresArePagesAndAnotherFamilyIsUnknown() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let other = try await server.createFamily(name: "Another parent")
            let (_, otherChild) = try await server.pair(by: other)
            let otherMember = try await server.memberID(of: otherChild)
            let browser = try await Self.signedIn(server, by: parent)
            for (path, status) in [("/app/members/not-a-uuid", 400), ("/app/members/\(UUID().lowercased)", 404), ("/app/members/\(otherMember.lowercased)", 404)] {
                let page = try await browser.get(path)
                #expect(page.status == status, "\(path)")
                #expect(page.header("content-type")?.hasPrefix("text/html") == true)
                #expect(page.header("content-security-policy") == WebSecurityHeadersMiddleware.contentSecurityPolicy)
                #expect(!page.html.contains(otherMember.lowercased), "nothing of the other family")
            }
            // Blocking an app of another family's member sends nothing.
            let before = try await server.fingerprint()
            let refused = try await browser.send("POST", "/app/members/\(otherMember.lowercased)/apps", form: "csrf=\(browser.cookie(WebCookies.csrf)!)&app=tiktok&action=block")
            #expect(refused.status == 404)
            #expect(try await server.fingerprint() == before)
        }
    }

    /// The family page lists a device that accepted a pairing and waits for a parent, with its
    /// emoji and a Confirm button; the button lets it in.
    @Test func aDeviceWaitingToJoinIsListedAndConfirmed() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let browser = try await Self.signedIn(server, by: parent)
            #expect(!(try await browser.get("/app/")).html.contains(#"id="pairings""#), "nobody waits yet")

            let (pairingID, device) = try await server.pair(by: parent, confirm: false)
            let pairing = try await server.send(.get, "/v1/pairings/\(pairingID.lowercased)", credential: parent.credential).decode(PairingBody.self)
            let family = try await browser.get("/app/")
            #expect(family.status == 200)
            #expect(family.html.contains(#"<section id="pairings"><h2>Waiting to join</h2>"#))
            #expect(family.html.contains("<td>Johnny&#39;s iPad</td>"))
            #expect(family.html.contains(try #require(pairing.verificationEmoji).joined()))
            #expect(family.html.contains(#"action="/app/pairings/\#(pairingID.lowercased)/confirm""#))
            #expect(family.html.contains(#"<button type="submit" id="confirm-\#(pairingID.lowercased)">Confirm</button>"#))

            let confirmed = try await browser.post("/app/pairings/\(pairingID.lowercased)/confirm")
            #expect(confirmed.status == 303 && confirmed.location == "/app/")
            #expect(try await server.send(.get, "/v1/devices/me", credential: device.credential).decode(DeviceBody.self).status == .active)
            #expect(!(try await browser.get("/app/")).html.contains(#"id="pairings""#), "no longer waiting")
        }
    }

    /// Every answer under `/app/` is a page with the dashboard's headers, at §1.1's status: an
    /// unknown path (404), a method a known path does not serve (405, with `Allow`), a body past
    /// the limit (413). The API's own unknown paths still answer JSON.
    @Test func everyAnswerUnderAppIsAPage() async throws {
        let configuration = ServerConfiguration(port: 0, limits: Limits(maxBodyBytes: 1024))
        try await withTestServer(configuration: configuration) { server in
            let browser = CookieBrowser(port: server.port)
            _ = try await browser.get("/app/")
            let csrf = try #require(browser.cookie(WebCookies.csrf))
            let cases: [(method: String, path: String, form: String?, status: Int, allow: String?)] = [
                ("GET", "/app/nowhere", nil, 404, nil),
                ("GET", "/app/members/\(UUID().lowercased)/nowhere", nil, 404, nil),
                ("POST", "/app/nowhere", "csrf=\(csrf)", 404, nil),
                ("GET", "/app/sign-out", nil, 405, "POST"),
                ("DELETE", "/app/", nil, 405, "GET"),
                ("PUT", "/app/members/\(UUID().lowercased)", "csrf=\(csrf)", 405, "GET"),
                ("POST", "/app/sign-in", "csrf=\(csrf)&pad=" + String(repeating: "x", count: 2000), 413, nil),
            ]
            for testCase in cases {
                let page = try await browser.send(testCase.method, testCase.path, form: testCase.form)
                let what = "\(testCase.method) \(testCase.path)"
                #expect(page.status == testCase.status, "\(what)")
                #expect(page.header("content-type") == "text/html; charset=utf-8", "\(what)")
                #expect(page.html.hasPrefix("<!doctype html>") && page.html.contains(#"<p class="muted">"#), "\(what): \(page.html.prefix(200))")
                #expect(page.header("allow") == testCase.allow, "\(what)")
                #expect(page.header("content-security-policy") == WebSecurityHeadersMiddleware.contentSecurityPolicy, "\(what)")
                #expect(page.header("x-frame-options") == "DENY" && page.header("x-content-type-options") == "nosniff", "\(what)")
                #expect(page.header("referrer-policy") == "no-referrer" && page.header("cache-control") == "no-store", "\(what)")
            }
            for (method, path, status) in [("GET", "/v1/nowhere", 404), ("GET", "/application", 404), ("DELETE", "/health/live", 405)] {
                let answer = try await browser.send(method, path, form: nil)
                #expect(answer.status == status, "\(method) \(path)")
                #expect(answer.header("content-type")?.hasPrefix("application/json") == true, "\(method) \(path)")
                #expect(answer.header("content-security-policy") == nil, "\(method) \(path)")
            }
        }
    }

    @Test func aBrowserNotConfirmedInTimeStartsAgain() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let browser = CookieBrowser(port: server.port)
            _ = try await Self.signIn(browser, server, by: parent)
            #expect(try await browser.get("/app/sign-in").html.contains("id=\"emoji\""))
            server.clock.advance(by: 601)
            let page = try await browser.get("/app/sign-in")
            #expect(page.html.contains("not confirmed in time"))
            #expect(browser.cookie(WebCookies.session) == nil)
        }
    }

    /// Every form with a bad field or an unknown target: §1.1's status as a page, nothing changed.
    @Test func badFormsAreRefusedAndChangeNothing() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let member = try await server.memberID(of: child).lowercased
            let browser = try await Self.signedIn(server, by: parent)
            let csrf = try #require(browser.cookie(WebCookies.csrf))
            let cases: [(path: String, form: String, status: Int, reason: String)] = [
                ("/app/members/\(member)/apps", "csrf=\(csrf)&action=block", 400, "Name the app."),
                ("/app/members/\(member)/apps", "csrf=\(csrf)&app=tiktok&action=delete", 400, "The action is block or unblock."),
                ("/app/members/\(UUID().lowercased)/apps", "csrf=\(csrf)&app=tiktok&action=block", 404, "No such member."),
                ("/app/alerts/\(UUID().lowercased)/dismiss", "csrf=\(csrf)", 404, "No such alert."),
                ("/app/devices/not-a-uuid/sync", "csrf=\(csrf)", 400, "&#39;not-a-uuid&#39; is not a UUID."),
                ("/app/pairings/\(UUID().lowercased)/confirm", "csrf=\(csrf)", 404, "No such pairing."),
                // Bodies no browser sends: a broken escape (it once stopped the server), a field
                // twice, a field as a list.
                ("/app/members/\(member)/apps", "csrf=\(csrf)&app=%ZZ&action=block", 400, "This form could not be read"),
                ("/app/members/\(member)/apps", "csrf=\(csrf)&app=tiktok&app=brawl&action=block", 400, "This form could not be read"),
                ("/app/members/\(member)/apps", "csrf=\(csrf)&app[]=tiktok&action=block", 400, "This form could not be read"),
                ("/app/sign-out", "csrf=\(csrf)&note=50%", 400, "This form could not be read"),
            ]
            let before = try await server.fingerprint()
            for testCase in cases {
                let page = try await browser.send("POST", testCase.path, form: testCase.form)
                #expect(page.status == testCase.status, "\(testCase.path) \(testCase.form)")
                #expect(page.header("content-type")?.hasPrefix("text/html") == true)
                #expect(page.header("content-security-policy") == WebSecurityHeadersMiddleware.contentSecurityPolicy)
                #expect(page.html.contains(testCase.reason), "\(testCase.path)")
            }
            #expect(try await server.fingerprint() == before, "a refused form changes nothing")
        }
    }

    @Test func behindTLSTheCookiesAreSecure() async throws {
        let configuration = ServerConfiguration(port: 0, publicURL: "https://sync.example.com", unauthenticatedRateLimit: RateLimit(burst: 1000, perMinute: 1000))
        try await withTestServer(configuration: configuration) { server in
            let browser = CookieBrowser(port: server.port)
            let start = try await browser.get("/app/")
            #expect(start.setCookies.allSatisfy { $0.contains("; Secure") } && !start.setCookies.isEmpty)
            let started = try await browser.post("/app/sign-in")
            #expect(started.setCookies.contains { $0.hasPrefix("fs_sign_in=") && $0.contains("; Secure") })
            let waiting = try await browser.get("/app/sign-in")
            #expect(waiting.html.contains("id=\"code\""))
        }
    }

    @Test func aRevokedBrowserIsSignedOut() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let browser = CookieBrowser(port: server.port)
            let pairing = try await Self.signIn(browser, server, by: parent)
            // The parent turns the browser away instead.
            _ = try await server.send(.post, "/v1/pairings/\(pairing.id.lowercased)/reject", credential: parent.credential)
            let page = try await browser.get("/app/")
            #expect(page.status == 200 && page.html.contains("no longer a device of a family"))
            #expect(browser.cookie(WebCookies.session) == nil)
        }
    }
}
