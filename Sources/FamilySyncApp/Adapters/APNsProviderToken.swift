import FamilySyncCore
import FamilySyncServer
import Foundation
import JWTKit

/// APNs token authentication (PROTOCOL §12): an ES256 JWT from the app maker's `.p8` key, signed
/// by jwt-kit, `kid` the key id, `iss` the team id, `iat` when made. Apple refuses one older than an
/// hour and one renewed more often than every 20 minutes, so one is kept and renewed after 40.
actor APNsProviderToken {
    static let lifetime: TimeInterval = 40 * 60

    private let keys: JWTKeyCollection
    private let keyID: String
    private let teamID: String
    private let clock: any WallClock
    private var current: (token: String, issuedAt: Date)?

    /// `pem`: the `.p8` file's content (a PKCS #8 P-256 private key).
    init(pem: String, keyID: String, teamID: String, clock: any WallClock) async throws {
        let key = try ES256PrivateKey(pem: pem)
        keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: keyID))
        self.keyID = keyID
        self.teamID = teamID
        self.clock = clock
    }

    /// The token to send now: the kept one, or a new one when it is 40 minutes old.
    func token() async throws -> String {
        let now = clock.now()
        if let current, now.timeIntervalSince(current.issuedAt) < Self.lifetime, now >= current.issuedAt { return current.token }
        // APNs reads `iat` in whole seconds.
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let token = try await keys.sign(Claims(iss: IssuerClaim(value: teamID), iat: IssuedAtClaim(value: issuedAt)), kid: JWKIdentifier(string: keyID))
        current = (token, issuedAt)
        return token
    }

    /// APNs said the token expired (a clock that jumped): the next send makes a new one.
    func discard(_ token: String) {
        if current?.token == token { current = nil }
    }

    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}
