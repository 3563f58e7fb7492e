/// What the family routes ask of Sign in with Apple (PROTOCOL §13): the subject of an identity
/// token once every check passed. The adapter that asks Apple's keys is the application's
/// (`AppleIdentityVerifier`).
package protocol AppleIdentityChecking: Sendable {
    /// A token that fails a check is `BAD_REQUEST` naming `field`; Apple's keys out of reach is
    /// `TRY_AGAIN_LATER`; a server without client ids answers 404.
    func subject(of token: String, nonce: String, field: String) async throws -> String
}
