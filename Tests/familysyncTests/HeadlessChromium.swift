import AsyncHTTPClient
import FamilySyncTestSupport
import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Debian's Chromium, headless, driven by Debian's `chromedriver` over the W3C WebDriver protocol
/// (plain HTTP and JSON): open a page, find and click, read text and the page's source, run a
/// line of script, take a screenshot.
final class HeadlessChromium: Sendable {
    let driver: ServerProcess
    /// `http://127.0.0.1:<port>/session/<id>`.
    let session: String

    static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5), read: .seconds(60)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    private init(driver: ServerProcess, session: String) {
        self.driver = driver
        self.session = session
    }

    /// Starts chromedriver and a browser whose profile (cookies) lives in `directory`.
    static func start(directory: String, arguments extra: [String] = []) async throws -> HeadlessChromium {
        let port = try freePort()
        let driver = try await ServerProcess.start(["--port=\(port)"], executable: "/usr/bin/chromedriver", port: port, workingDirectory: directory)
        let base = "http://127.0.0.1:\(port)"
        let deadline = ContinuousClock.now + .seconds(20)
        while ((try? await call("GET", base + "/status")) as? [String: Any])?["ready"] as? Bool != true {
            guard ContinuousClock.now < deadline else {
                driver.signal(SIGKILL)
                throw TestFailure("chromedriver did not start: \(driver.stderr)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let options: [String: Any] = [
            "binary": "/usr/bin/chromium",
            // As root (CI) Chromium needs --no-sandbox; a container's /dev/shm is small.
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1600", "--lang=en-US",
                     "--user-data-dir=\(directory)/chromium-profile"] + extra,
        ]
        let created = try await call("POST", base + "/session", ["capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]])
        guard let id = (created as? [String: Any])?["sessionId"] as? String else {
            driver.signal(SIGKILL)
            throw TestFailure("no WebDriver session: \(String(describing: created))")
        }
        return HeadlessChromium(driver: driver, session: base + "/session/" + id)
    }

    /// A new tab, made the current one; its handle.
    @discardableResult
    func newTab() async throws -> String {
        let created = try await Self.call("POST", session + "/window/new", ["type": "tab"]) as? [String: Any]
        guard let handle = created?["handle"] as? String else { throw TestFailure("no new tab: \(String(describing: created))") }
        try await switchTo(handle)
        return handle
    }

    /// Makes the tab or window `handle` the current one.
    func switchTo(_ handle: String) async throws {
        _ = try await Self.call("POST", session + "/window", ["handle": handle])
    }

    var currentTab: String {
        get async throws { try await Self.call("GET", session + "/window") as? String ?? "" }
    }

    func open(_ url: String) async throws {
        _ = try await Self.call("POST", session + "/url", ["url": url])
    }

    var currentURL: String {
        get async throws { try await Self.call("GET", session + "/url") as? String ?? "" }
    }

    var source: String {
        get async throws { try await Self.call("GET", session + "/source") as? String ?? "" }
    }

    /// The element `css` selects, waiting for it up to `timeout` (pages refresh themselves).
    func element(_ css: String, using strategy: String = "css selector", timeout: Duration = .seconds(20)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = try? await Self.call("POST", session + "/element", ["using": strategy, "value": css]) as? [String: Any],
                let id = found.first(where: { $0.key.hasPrefix("element-") })?.value as? String
            {
                return id
            }
            guard ContinuousClock.now < deadline else { throw TestFailure("no \(css) on \(try await currentURL):\n\(try await source)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    func click(_ css: String, using strategy: String = "css selector") async throws {
        let id = try await element(css, using: strategy)
        _ = try await Self.call("POST", session + "/element/\(id)/click", [String: Any]())
    }

    func text(_ css: String) async throws -> String {
        let id = try await element(css)
        return try await Self.call("GET", session + "/element/\(id)/text") as? String ?? ""
    }

    /// Runs `script` in the page (synchronously) and returns its value.
    func run(_ script: String) async throws -> Any? {
        try await Self.call("POST", session + "/execute/sync", ["script": script, "args": [Any]()])
    }

    /// Runs `script`, which ends by calling `arguments[arguments.length - 1]` with its value.
    func runAsync(_ script: String) async throws -> Any? {
        try await Self.call("POST", session + "/execute/async", ["script": script, "args": [Any]()])
    }

    /// The window's size in CSS pixels (a phone's 375 wide, a laptop's 1280).
    func resize(width: Int, height: Int) async throws {
        _ = try await Self.call("POST", session + "/window/rect", ["width": width, "height": height])
    }

    /// Presses keys as a person would, one after another (WebDriver's key codes: Tab is \u{E004}, Enter \u{E007}).
    func press(_ keys: [String]) async throws {
        let actions = keys.flatMap { [["type": "keyDown", "value": $0], ["type": "keyUp", "value": $0]] }
        _ = try await Self.call("POST", session + "/actions", ["actions": [["type": "key", "id": "keyboard", "actions": actions]]])
    }

    /// axe-core's WCAG 2 A and AA rules run on the page (the script PyPI's axe-selenium-python
    /// ships, installed by scripts/lib/ensure-test-packages.sh): each violation as "rule: target".
    func accessibilityViolations() async throws -> [String] {
        let path = TestPaths.packageRoot.appendingPathComponent(".build/test-python/axe_selenium_python/node_modules/axe-core/axe.min.js").path
        guard let axe = FileManager.default.contents(atPath: path).flatMap({ String(data: $0, encoding: .utf8) }) else {
            throw TestFailure("no axe-core at \(path): scripts/lib/ensure-test-packages.sh installs it")
        }
        _ = try await run(axe + "\n;return true;")
        let found = try await runAsync("""
            var done = arguments[arguments.length - 1];
            axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa"] } })
              .then(function (r) { done(r.violations.map(function (v) { return v.id + ": " + v.nodes.map(function (n) { return n.target.join(" "); }).join(", "); })); },
                    function (e) { done(["axe failed: " + e]); });
            """)
        return found as? [String] ?? ["axe gave no answer"]
    }

    /// A PNG of the window, written to `path`.
    func screenshot(to path: String) async throws {
        guard let encoded = try await Self.call("GET", session + "/screenshot") as? String, let png = Data(base64Encoded: encoded) else {
            throw TestFailure("no screenshot")
        }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try png.write(to: URL(fileURLWithPath: path))
    }

    func quit() async {
        _ = try? await Self.call("DELETE", session)
        driver.signal(SIGTERM)
        _ = try? await driver.waitForExit(timeout: .seconds(10))
    }

    /// One WebDriver command: its `value`, or its error as a failure.
    @discardableResult
    static func call(_ method: String, _ url: String, _ body: Any? = nil) async throws -> Any? {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await http.execute(request, timeout: .seconds(60))
        let data = Data((try await response.body.collect(upTo: 32 << 20)).readableBytesView)
        let value = (try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [String: Any])?["value"]
        guard response.status.code < 300 else { throw TestFailure("WebDriver \(method) \(url): \(response.status.code) \(String(describing: value))") }
        return value is NSNull ? nil : value
    }
}
