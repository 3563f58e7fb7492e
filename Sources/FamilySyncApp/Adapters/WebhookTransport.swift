import AsyncHTTPClient
import Crypto
import FamilySyncCore
import FamilySyncServer
import Foundation
import Logging
import NIOCore

/// `--push-webhook-url` (PROTOCOL §12): each push POSTed as JSON to the app maker's service instead
/// of APNs, signed so that it can tell the server's requests from anyone's:
/// `familysync-signature: t=<unix seconds>,v1=<hex HMAC-SHA-256 of "<t>.<body>" with the secret>`.
/// The time is in the signed text so that a receiver can refuse an old request replayed.
struct WebhookTransport: PushTransport {
    static let signatureHeader = "familysync-signature"

    let client: HTTPClient
    let url: String
    let secret: SymmetricKey
    let clock: any WallClock
    let logger: Logger

    init(url: String, secret: [UInt8], clock: any WallClock, logger: Logger) {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(10))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.url = url
        self.secret = SymmetricKey(data: secret)
        self.clock = clock
        self.logger = logger
    }

    /// The signature header's value for `body` sent at `time`.
    static func signature(of body: some DataProtocol, at time: Int, secret: SymmetricKey) -> String {
        var signed = Data("\(time).".utf8)
        signed.append(contentsOf: body)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: secret)
        return "t=\(time),v1=\(mac.map { String(format: "%02x", $0) }.joined())"
    }

    func send(_ delivery: PushDelivery) async -> PushOutcome {
        do {
            let body = try JSONEncoder.webhook.encode(WebhookPush(delivery))
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "content-type", value: "application/json")
            request.headers.add(name: Self.signatureHeader, value: Self.signature(of: body, at: Int(clock.now().timeIntervalSince1970), secret: secret))
            request.body = .bytes(ByteBuffer(bytes: body))
            let response = try await client.execute(request, timeout: .seconds(15))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return .webhook(status: Int(response.status.code))
        } catch {
            logger.warning("the push webhook could not be reached", metadata: ["error": "\(error)", "push": "\(delivery.pushID)"])
            return .retry(reason: "unreachable")
        }
    }

    func shutdown() async throws {
        try await client.shutdown()
    }
}

extension JSONEncoder {
    /// Sorted keys and RFC 3339 times, as the rest of the wire.
    static var webhook: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Instant.format(date))
        }
        return encoder
    }
}
