import AsyncHTTPClient
import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncTestSupport
import Foundation

extension ServerProcess {
    /// A sample's value on `/metrics` (the first line of that name, labels or not), nil if absent.
    func metric(_ name: String) async throws -> Double? {
        let response = try await AsyncHTTPClientTransport.sharedHTTPClient.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 4 << 20))
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") }
        return line?.split(separator: " ").last.flatMap { Double($0) }
    }

    /// Waits until `/metrics` shows `name` at `value` or more (a held poll counted, a restart made).
    func waitForMetric(_ name: String, atLeast value: Double, timeout: Duration = .seconds(20)) async throws {
        try await waitForMetric(name, "reach \(value)", timeout: timeout) { $0 >= value }
    }

    func waitForMetric(_ name: String, atMost value: Double, timeout: Duration = .seconds(20)) async throws {
        try await waitForMetric(name, "fall to \(value)", timeout: timeout) { $0 <= value }
    }

    private func waitForMetric(_ name: String, _ what: String, timeout: Duration, until holds: (Double) -> Bool) async throws {
        try await OpenWaits.during("\(name) to \(what) on port \(port)", limit: timeout) {
            let deadline = ContinuousClock.now + timeout
            while !((try? await metric(name)).flatMap({ $0 }).map(holds) ?? false) {
                guard ContinuousClock.now < deadline else { throw TestFailure("\(name) did not \(what); stderr:\n\(stderr)") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }
}
