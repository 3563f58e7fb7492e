import FamilySyncCore
import FamilySyncServerTestSupport
import FamilySyncTestSupport
@testable import FamilySyncWeb
import Foundation
import Testing

/// The dashboard's languages: one catalog each, key for key; the language a request gets; and how
/// each writes durations, days and times. The templates' keys are checked against the catalog by
/// `WebTemplateTests` (a missing `{{frame.t.key}}` is a name nothing stores).
@Suite struct WebCatalogTests {
    static func placeholders(_ text: String) -> Set<String> { Set(text.matches(of: /\{\d\}/).map { String($0.0) }) }

    @Test func everyKeyIsInEveryLanguageWithTheSamePlaceholders() {
        let english = WebCatalog.english
        for language in WebLanguage.allCases {
            let catalog = WebCatalog.of(language)
            #expect(Set(catalog.keys) == Set(english.keys), "\(language): missing \(Set(english.keys).subtracting(catalog.keys).sorted()), extra \(Set(catalog.keys).subtracting(english.keys).sorted())")
            for (key, text) in catalog {
                #expect(!text.trimmingCharacters(in: .whitespaces).isEmpty, "\(language) \(key) is empty")
                #expect(Self.placeholders(text) == Self.placeholders(english[key] ?? ""), "\(language) \(key): \(text)")
            }
        }
        // Korean is Korean: all but names (iOS, Mac…) and symbols differ from the English.
        let same = english.keys.filter { WebCatalog.korean[$0] == english[$0] }
        #expect(Set(same).isSubset(of: ["platform.ios", "platform.ipados", "platform.macos", "platform.watchos", "platform.android", "colId"]), "\(same.sorted())")
    }

    /// The keys the controllers build from values: every value they can be built from has one.
    @Test func everyKeyBuiltFromAValueExists() {
        var keys = DevicePlatform.allCases.map { "platform.\($0.rawValue)" } + DeviceRole.allCases.map { "role.\($0.rawValue)" }
        keys += TrackingStatus.allCases.map { "health.\($0.rawValue)" } + ["health.degraded"] + RetentionKind.allCases.map { "retention.\($0.rawValue)" }
        keys += CategoryID.builtIn.keys.map { "category.\($0)" } + CategoryKind.allCases.map { "kind.\($0.rawValue)" }
        keys += ["blocked", "blocking pending", "unblocking pending", "unblocked"].map { "state.\($0)" }
        keys += (0..<7).flatMap { ["weekday.short.\($0)", "weekday.long.\($0)"] } + (1...12).map { "month.\($0)" }
        keys += ["heartbeat_stale", "session_gap"].map { "gap.\($0)" } + ["name", "pin-set", "pin-clear", "moved", "revoked"].map { "done.\($0)" }
        keys += ["shield", "allowOnly"].map { "mode.\($0)" } + ["block", "unblock", "request_sync", "update_config"].map { "command.\($0)" }
        for language in WebLanguage.allCases {
            let missing = keys.filter { WebCatalog.of(language)[$0] == nil }
            #expect(missing.isEmpty, "\(language): \(missing)")
        }
    }

    /// Every literal key the controllers look up (`strings["…"]`, `format("…"`) is in the catalog.
    @Test func everyKeyTheControllersNameExists() throws {
        let folder = TestPaths.packageRoot.appendingPathComponent("Sources/FamilySyncWeb")
        var named: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") && !file.hasPrefix("WebCatalog") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: /(?:strings|session\.strings|form\.session\.strings)(?:\[|\.format\()"([a-zA-Z.\-]+)"/) { named.insert(String(match.1)) }
        }
        #expect(named.count > 30, "the scan finds the controllers' keys (\(named.count))")
        let missing = named.filter { WebCatalog.english[$0] == nil }
        #expect(missing.isEmpty, "\(missing.sorted())")
    }

    @Test func theLanguageIsTheChoiceElseTheBrowsersFirstSpoken() {
        #expect(WebLanguage.choose(cookie: nil, acceptLanguage: nil) == .en)
        #expect(WebLanguage.choose(cookie: nil, acceptLanguage: "ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7") == .ko)
        #expect(WebLanguage.choose(cookie: nil, acceptLanguage: "en-GB,en;q=0.9,ko;q=0.8") == .en)
        #expect(WebLanguage.choose(cookie: nil, acceptLanguage: "fr-FR, de;q=0.8, ko;q=0.5") == .ko)
        #expect(WebLanguage.choose(cookie: nil, acceptLanguage: "en;q=0.2, ko;q=0.8") == .ko, "by weight, not order")
        #expect(WebLanguage.choose(cookie: nil, acceptLanguage: "ko;q=0, fr") == .en, "q=0 is not acceptable")
        #expect(WebLanguage.choose(cookie: nil, acceptLanguage: ";;,=,q=x") == .en)
        #expect(WebLanguage.choose(cookie: "en", acceptLanguage: "ko") == .en)
        #expect(WebLanguage.choose(cookie: "ko", acceptLanguage: "en") == .ko)
        #expect(WebLanguage.choose(cookie: "xx", acceptLanguage: "ko") == .ko, "a cookie naming no language is ignored")
    }

    @Test func durationsDaysAndTimesInEachLanguage() {
        let english = WebStrings(.en), korean = WebStrings(.ko)
        #expect(english.duration(7800) == "2h 10m" && english.duration(2700) == "45m" && english.duration(0) == "0m")
        #expect(korean.duration(7800) == "2시간 10분" && korean.duration(2700) == "45분")
        #expect(english.day("2026-11-23") == "Mon 23" && korean.day("2026-11-23") == "23일 (월)")
        #expect(english.day("2026-11-29") == "Sun 29" && korean.day("2026-11-29") == "29일 (일)")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(english.ago(now.addingTimeInterval(-120), now: now) == "2 minutes ago" && korean.ago(now.addingTimeInterval(-120), now: now) == "2분 전")
        #expect(english.ago(now.addingTimeInterval(-3600), now: now) == "1 hour ago" && english.ago(nil, now: now) == "never")
        #expect(english.number(12345) == "12,345" && korean.number(12345) == "12,345")
        #expect(WebController.monthlyFormula(hours: 30, on: "2026-11-26", korean) == "한 달 30시간은 30 × 60 ÷ 30 = 하루 60분 (11월, 30일).")
    }

    /// A browser that prefers Korean gets Korean pages; the switch sets English for good, and
    /// goes back only to a page of the dashboard.
    @Test func aKoreanBrowserAndTheSwitch() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let browser = try await WebDashboardTests.signedIn(server, by: parent)
            let csrf = try #require(browser.cookie(WebCookies.csrf))
            let korean = try await browser.send("GET", "/app/", form: nil, headers: [("Accept-Language", "ko-KR,ko;q=0.9,en;q=0.8")])
            #expect(korean.html.contains("<html lang=\"ko\">") && korean.html.contains("<h1>우리 가족</h1>") && korean.html.contains("lang=\"en\" id=\"language\">English</button>"), "\(korean.html.prefix(1500))")
            let missing = try await browser.send("GET", "/app/members/\(UUID().lowercased)", form: nil, headers: [("Accept-Language", "ko")])
            #expect(missing.status == 404 && missing.html.contains("찾을 수 없습니다"), "a failure is a page in the language too")
            #expect(!missing.html.contains("id=\"language\""), "a failure page has no form token for the switch")

            let chosen = try await browser.send("POST", "/app/language", form: "csrf=\(csrf)&lang=en&back=%2Fapp%2Fprivacy")
            #expect(chosen.status == 303 && chosen.location == "/app/privacy" && browser.cookie(WebCookies.language) == "en")
            let english = try await browser.send("GET", "/app/", form: nil, headers: [("Accept-Language", "ko")])
            #expect(english.html.contains("<html lang=\"en\">") && english.html.contains("<h1>Your family</h1>"), "the choice wins over the header")

            let elsewhere = try await browser.send("POST", "/app/language", form: "csrf=\(csrf)&lang=ko&back=%2F%2Fevil.example%2Fapp")
            #expect(elsewhere.status == 303 && elsewhere.location == "/app/")
            let unknown = try await browser.send("POST", "/app/language", form: "csrf=\(csrf)&lang=fr")
            #expect(unknown.status == 400 && unknown.html.contains("lang"))
            #expect(try await browser.send("POST", "/app/language", form: "lang=en").status == 403)
        }
    }
}
