import AsyncHTTPClient
import FamilySyncTestSupport
import Foundation
import NIOCore
import Subprocess
import SystemPackage
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The alert rules, their unit tests and the Grafana dashboard (deploy/prometheus, deploy/grafana)
/// name only metrics a running `familysync serve` exports, and the dashboard's queries parse.
/// (`deploy/prometheus/check.sh`, which scripts/test runs, checks the rules and runs their tests.)
@Suite struct MonitoringFilesTests {
    static let root = TestPaths.packageRoot

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Every `expr` of the dashboard's panels, rows' folded panels included.
    static func dashboardExpressions() throws -> [String] {
        let dashboard = try #require(try JSONSerialization.jsonObject(with: Data(text("deploy/grafana/familysync.json").utf8)) as? [String: Any])
        func expressions(_ panels: [[String: Any]]) -> [String] {
            panels.flatMap { panel in
                ((panel["targets"] as? [[String: Any]]) ?? []).compactMap { $0["expr"] as? String } + expressions(panel["panels"] as? [[String: Any]] ?? [])
            }
        }
        return expressions(dashboard["panels"] as? [[String: Any]] ?? [])
    }

    @Test func theNameReaderFindsMetricsAndNothingElse() {
        #expect(PromQLNames.names(in: #"sum by (instance) (rate(hb_requests{job="familysync", http_response_status_code=~"5.."}[5m])) / clamp_min(sum by (instance) (rate(hb_requests[5m])), 1) > 0.01"#) == ["hb_requests"])
        #expect(PromQLNames.names(in: #"histogram_quantile(0.99, sum by (le) (rate(familysync_poll_wake_seconds_bucket{instance=~"$instance"}[$__rate_interval]))) > 0.5"#) == ["familysync_poll_wake_seconds_bucket"])
        #expect(PromQLNames.names(in: "max(a_gauge) / clamp_min(max(a_gauge) + max without (x) (b_gauge offset 5m), 1) and on() vector(1) or c_total") == ["a_gauge", "b_gauge", "c_total"])
        #expect(PromQLNames.expressions(inRulesFile: "  - alert: X\n    expr: |\n      up == 0\n        or down\n    for: 2m\n      - series: 'x_total{a=\"b\"}'\n") == ["      up == 0\n        or down", #"x_total{a="b"}"#])
    }

    @Test func everyNameInTheRulesTheirTestsAndTheDashboardIsExported() async throws {
        let rules = PromQLNames.expressions(inRulesFile: try Self.text("deploy/prometheus/familysync-rules.yml"))
        let tests = PromQLNames.expressions(inRulesFile: try Self.text("deploy/prometheus/familysync-rules.test.yml"))
        let dashboard = try Self.dashboardExpressions()
        #expect(rules.count >= 15 && dashboard.count >= 20, "the files were read: \(rules.count) rules, \(dashboard.count) panels' queries")

        let exported = try await Self.exportedNames()
        // Prometheus's own series for each scraped target.
        let known = exported.union(["up"])
        for (file, expressions) in [("rules", rules), ("rules' tests", tests), ("dashboard", dashboard)] {
            let named = expressions.reduce(into: Set<String>()) { $0.formUnion(PromQLNames.names(in: $1)) }
            #expect(!named.isEmpty)
            #expect(named.subtracting(known).sorted() == [], "the \(file) name metrics the server does not export")
        }
    }

    /// `promtool check rules` on the dashboard's queries as recording rules: each parses.
    @Test func theDashboardsQueriesParse() async throws {
        let expressions = try Self.dashboardExpressions()
        var file = "groups:\n  - name: dashboard\n    rules:\n"
        for (index, expression) in expressions.enumerated() {
            let query = expression.replacingOccurrences(of: "$__rate_interval", with: "5m").replacingOccurrences(of: "$instance", with: ".*")
            let quoted = query.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: " ")
            file += "      - record: dashboard:query_\(index)\n        expr: \"\(quoted)\"\n"
        }
        let result = try await withTemporaryDirectory { directory in
            let path = directory + "/dashboard-rules.yml"
            try file.write(toFile: path, atomically: true, encoding: .utf8)
            return try await Subprocess.run(.name("promtool"), arguments: ["check", "rules", path], output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
        }
        #expect(result.terminationStatus.isSuccess, "\(result.standardOutput) \(result.standardError)")
        #expect(result.standardOutput.contains("SUCCESS: \(expressions.count) rules found"), "\(result.standardOutput)")
    }

    /// The names `familysync serve` exports on the embedded database it manages (the README's run
    /// command; it adds the embedded database's figures to those of any database): each family's
    /// `# TYPE` line, with a histogram's series.
    static func exportedNames() async throws -> Set<String> {
        try await withTemporaryDirectory { directory in
            let port = try freePort()
            let server = try await ServerProcess.start(["serve", "--port", "\(port)", "--data-dir", directory + "/data"], port: port, workingDirectory: directory)
            do {
                try await server.waitUntilReady()
                let names = try await scrape(port)
                server.signal(SIGTERM)
                _ = try await server.waitForExit()
                return names
            } catch {
                server.signal(SIGTERM)
                _ = try? await server.waitForExit()
                throw error
            }
        }
    }

    static func scrape(_ port: Int) async throws -> Set<String> {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 4 << 20)
        var names: Set<String> = []
        for line in String(buffer: body).split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let parts = line.split(separator: " ")
            guard parts.count == 4 else { continue }
            let name = String(parts[2])
            names.insert(name)
            if parts[3] == "histogram" { names.formUnion(["_bucket", "_count", "_sum"].map { name + $0 }) }
        }
        return names
    }
}
