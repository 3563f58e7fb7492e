import AsyncHTTPClient
import Crypto
import FamilySyncCore
import FamilySyncServer
import Foundation
import JWTKit
import Logging
import NIOCore

/// Sign in with Apple identity tokens (PROTOCOL §13), verified with jwt-kit: RS256 against the
/// keys of Apple's JWKS, `iss` Apple, `aud` one of the configured client ids, `exp` not passed,
/// `nonce` the SHA-256 (hex) of the nonce the app sent, as Apple writes it. The keys are fetched
/// on first use and again when a token names a key id not among them, at most once a minute (so
/// that junk tokens cannot make the server hammer Apple).
actor AppleIdentityVerifier: AppleIdentityChecking {
    let jwksURL: String
    let clientIDs: [String]
    let clock: any WallClock
    let logger: Logger
    private var keys = JWTKeyCollection()
    private var keyIDs: Set<String> = []
    private var lastFetch: Date?
    static let refetchInterval: TimeInterval = 60

    init(jwksURL: String, clientIDs: [String], clock: any WallClock, logger: Logger) {
        self.jwksURL = jwksURL
        self.clientIDs = clientIDs
        self.clock = clock
        self.logger = logger
    }

    var isEnabled: Bool { !clientIDs.isEmpty }

    /// The token's `sub` once every check passed. A token that fails one is `BAD_REQUEST` naming
    /// `field`; Apple's keys out of reach is `TRY_AGAIN_LATER`.
    package func subject(of token: String, nonce: String, field: String) async throws -> String {
        guard isEnabled else { throw FamilySyncError.notFound("Sign in with Apple is not configured on this server.") }
        let refused = FamilySyncError.badRequest("The Apple identity token is not valid.", field: field)
        guard token.utf8.count <= 16_384, let header = try? DefaultJWTParser().parse(Array(token.utf8), as: AppleIdentityToken.self).header,
            header.alg == "RS256", let kid = header.kid
        else { throw refused }
        if !keyIDs.contains(kid) { try await refetch() }
        guard keyIDs.contains(kid) else { throw refused }
        let payload: AppleIdentityToken
        do {
            payload = try await keys.verify(token, as: AppleIdentityToken.self, expectedAudiences: clientIDs)
        } catch {
            logger.debug("refused an Apple identity token", metadata: ["error": "\(error)"])
            throw refused
        }
        let expected = SHA256.hash(data: Data(nonce.utf8)).map { String(format: "%02x", $0) }.joined()
        guard let claimed = payload.nonce, constantTimeEquals(Array(claimed.utf8), Array(expected.utf8)) else { throw refused }
        return payload.subject.value
    }

    /// Fetches the JWKS again unless it was fetched within the last minute. Only RS256 keys with
    /// a key id are kept: a key without `alg` would let the token's header choose the algorithm.
    private func refetch() async throws {
        let now = clock.now()
        if let lastFetch, now.timeIntervalSince(lastFetch) < Self.refetchInterval { return }
        lastFetch = now
        let jwks: JWKS
        do {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: jwksURL), timeout: .seconds(5))
            guard response.status == .ok else { throw FamilySyncError(.tryAgainLater, "Apple's keys answered \(response.status.code).") }
            let body = try await response.body.collect(upTo: 1 << 20)
            jwks = try JSONDecoder().decode(JWKS.self, from: Data(body.readableBytesView))
        } catch {
            logger.warning("could not fetch Apple's keys", metadata: ["url": "\(jwksURL)", "error": "\(error)"])
            throw FamilySyncError(.tryAgainLater, "Apple's keys are out of reach; try again later.", retryAfter: 60)
        }
        let fresh = JWTKeyCollection()
        var ids: Set<String> = []
        for key in jwks.keys where key.algorithm == .rs256 {
            // A key jwt-kit cannot use is left out, and so is its id: its tokens are refused.
            guard let kid = key.keyIdentifier, (try? await fresh.add(jwk: key)) != nil else { continue }
            ids.insert(kid.string)
        }
        keys = fresh
        keyIDs = ids
    }
}
