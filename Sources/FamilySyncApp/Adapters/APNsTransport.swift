import AsyncHTTPClient
import FamilySyncCore
import FamilySyncServer
import Foundation
import Logging
import NIOCore
import NIOSSL

/// APNs's HTTP/2 provider API (PROTOCOL §12), on async-http-client: one HTTP/2 connection per
/// host carries many pushes at once. `POST /3/device/<token>` with the provider token and the
/// `apns-*` headers; the answer's status and `reason` decide the outcome.
struct APNsTransport: PushTransport {
    static let productionURL = "https://api.push.apple.com"
    static let sandboxURL = "https://api.sandbox.push.apple.com"

    let client: HTTPClient
    let token: APNsProviderToken
    /// Every push to this environment's host, whatever its registration says; nil: the
    /// registration's environment decides.
    let environment: PushRegistration.Environment?
    /// A stand-in for both of Apple's hosts (tests, benchmarks).
    let baseURL: String?
    let logger: Logger

    /// `trustRoots`: PEM certificates to trust instead of the system's (a stand-in's).
    init(
        keyPEM: String, keyID: String, teamID: String, environment: PushRegistration.Environment?, baseURL: String?, trustRoots: [String]?,
        clock: any WallClock, logger: Logger
    ) async throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let trustRoots {
            tls.trustRoots = .certificates(try trustRoots.flatMap { try NIOSSLCertificate.fromPEMBytes(Array($0.utf8)) })
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(10))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        token = try await APNsProviderToken(pem: keyPEM, keyID: keyID, teamID: teamID, clock: clock)
        self.environment = environment
        self.baseURL = baseURL
        self.logger = logger
    }

    func send(_ delivery: PushDelivery) async -> PushOutcome {
        let host = baseURL ?? ((environment ?? delivery.registration.environment) == .production ? Self.productionURL : Self.sandboxURL)
        do {
            let bearer = try await token.token()
            var request = HTTPClientRequest(url: "\(host)/3/device/\(delivery.registration.token)")
            request.method = .POST
            request.headers.add(name: "authorization", value: "bearer \(bearer)")
            request.headers.add(name: "apns-topic", value: delivery.registration.topic)
            request.headers.add(name: "apns-push-type", value: delivery.kind.rawValue)
            request.headers.add(name: "apns-priority", value: "\(delivery.priority)")
            request.headers.add(name: "apns-expiration", value: "\(Int(delivery.expiresAt.timeIntervalSince1970))")
            request.headers.add(name: "apns-id", value: delivery.apnsID.uuidString)
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(delivery.payload)))
            let response = try await client.execute(request, timeout: .seconds(15))
            let body = try await response.body.collect(upTo: 64 * 1024)
            let reason = (try? JSONDecoder().decode(Answer.self, from: body))?.reason
            let outcome = PushOutcome.apns(status: Int(response.status.code), reason: reason)
            if reason == "ExpiredProviderToken" { await token.discard(bearer) }
            if outcome != .sent {
                logger.debug("APNs refused a push", metadata: ["status": "\(response.status.code)", "reason": "\(reason ?? "")", "push": "\(delivery.pushID)"])
            }
            return outcome
        } catch {
            logger.warning("APNs could not be reached", metadata: ["error": "\(error)", "push": "\(delivery.pushID)"])
            return .retry(reason: "unreachable")
        }
    }

    func shutdown() async throws {
        try await client.shutdown()
    }

    struct Answer: Decodable {
        var reason: String?
    }
}
