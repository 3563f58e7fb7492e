import Crypto
import FamilySyncTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization

/// An app maker's push relay as `--push-webhook-url` reaches it (PROTOCOL §12), on a port of this
/// machine: it checks each request's `familysync-signature` with the shared secret, as a receiver
/// should (HMAC-SHA-256 of "<t>.<body>", compared in constant time), and keeps what came.
public final class WebhookReceiver: Sendable {
    public struct Push: Sendable {
        public var body: Data
        public var signatureValid: Bool
        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        public var deviceID: String { json["deviceID"] as? String ?? "" }
        public var kind: String { json["kind"] as? String ?? "" }
        public var pushID: Int64 { (json["pushID"] as? NSNumber)?.int64Value ?? -1 }
        public var payload: [String: Any] { json["payload"] as? [String: Any] ?? [:] }
    }

    private struct State {
        var pushes: [Push] = []
        var statuses: [Int] = []
    }

    public let secret: [UInt8]
    private let state = Mutex(State())

    init(secret: [UInt8]) {
        self.secret = secret
    }

    public var pushes: [Push] { state.withLock { $0.pushes } }

    /// The statuses to answer the next requests with, in order; then 204.
    public func answer(_ statuses: [Int]) {
        state.withLock { $0.statuses += statuses }
    }

    /// Returns once `count` pushes have come; fails the test after `timeout`.
    public func waitForPushes(_ count: Int, timeout: Duration = .seconds(10)) async throws -> [Push] {
        try await OpenWaits.during("\(count) pushes at the webhook", limit: timeout) {
            let deadline = ContinuousClock.now + timeout
            while pushes.count < count {
                guard ContinuousClock.now < deadline else { throw TestFailure("the webhook got \(pushes.count) pushes in \(timeout), not \(count)") }
                try await Task.sleep(for: .milliseconds(2))
            }
            return pushes
        }
    }

    /// Checks `t=<time>,v1=<hex>` against the body.
    func verify(_ header: String?, body: Data) -> Bool {
        guard let header else { return false }
        var fields: [String: String] = [:]
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        guard let time = fields["t"], let given = fields["v1"] else { return false }
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(time).".utf8) + body, using: SymmetricKey(data: secret))
        let expected = mac.map { String(format: "%02x", $0) }.joined()
        return given.utf8.count == expected.utf8.count && zip(given.utf8, expected.utf8).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    func received(_ push: Push) -> Int {
        state.withLock { state in
            state.pushes.append(push)
            return state.statuses.isEmpty ? 204 : state.statuses.removeFirst()
        }
    }
}

/// Runs `body` with a webhook receiver listening at `http://127.0.0.1:<port>/push`.
public func withWebhookReceiver<Result: Sendable>(
    secret: [UInt8] = Array("a shared secret of at least 32 characters".utf8), _ body: @Sendable (WebhookReceiver, String) async throws -> Result
) async throws -> Result {
    let receiver = WebhookReceiver(secret: secret)
    let router = Router()
    router.post("push") { request, _ -> Response in
        let buffer = try await request.body.collect(upTo: 1 << 20)
        let data = Data(buffer.readableBytesView)
        let status = receiver.received(.init(body: data, signatureValid: receiver.verify(request.headers[.init("familysync-signature")!], body: data)))
        return Response(status: .init(code: status))
    }
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    return try await app.test(.live) { client in
        try await body(receiver, "http://127.0.0.1:\(client.port!)/push")
    }
}
