import Crypto
import FamilySyncCore
import FamilySyncPostgres
import Foundation
import Hummingbird

/// The dashboard's cookies. Every one is `HttpOnly` (no script reads it), `SameSite=Strict` (no
/// other site's page sends it), `Path=/app` (the dashboard, with or without its slash), and
/// `Secure` when the server is reached over TLS (its public URL is https://). The session cookie
/// holds the browser's dashboard session (`DashboardSession`), not its device credential: no
/// `/v1` route takes it, and it ends on the server.
struct WebCookies {
    static let session = "fs_session"
    /// The device's secret while it waits for a parent to take its code (§3.1).
    static let signIn = "fs_sign_in"
    /// The pairing the browser accepted, to show its emoji until the parent confirms.
    static let pairing = "fs_pairing"
    /// The form token every state-changing request must carry (`csrf`), also in this cookie: once
    /// signed in, the session's own (`formToken(for:)`); before, a random one.
    static let csrf = "fs_csrf"
    /// Set once a parent named after its device kept that name: the family page asks no more.
    static let nameAsked = "fs_name_asked"
    /// The dashboard's language when the parent chose one (`en`, `ko`); else `Accept-Language`'s.
    static let language = "fs_lang"
    /// Every cookie of the dashboard: the only ones a session reads.
    static let all = [session, signIn, pairing, csrf, nameAsked, language]

    let secure: Bool
    let sessions: PostgresDashboardSessionStore
    /// The key a signed-in browser's form token is derived with (from the server's secret).
    let formKey: @Sendable () throws -> SymmetricKey
    /// The key a session's device credential is sealed with (from the server's secret).
    let sealKey: @Sendable () throws -> SymmetricKey

    /// A new session for the browser's device whose credential is `credential`; its token goes in
    /// the session cookie.
    func begin(familyID: UUID, deviceID: UUID, credential: String) async throws -> DashboardSession {
        let session = DashboardSession.generate(familyID: familyID)
        let sealed = try AES.GCM.seal(Array(credential.utf8), using: try sealKey()).combined.map(Array.init) ?? []
        try await sessions.begin(session, deviceID: deviceID, sealed: sealed)
        return session
    }

    /// The device credential of the live session `token` names; nil for no session, an ended
    /// one, or a token that is not one (a device credential from before sessions among them,
    /// which the family page ends: `WebController.endSessionFromBeforeSessions`).
    func credential(ofSession token: String) async throws -> String? {
        guard let session = DashboardSession(parsing: token), let sealed = try await sessions.resume(session) else { return nil }
        // A seal that does not open (its row altered) is no session, not a failure of the page.
        guard let box = try? AES.GCM.SealedBox(combined: sealed), let opened = try? AES.GCM.open(box, using: try sealKey()) else { return nil }
        return String(decoding: opened, as: UTF8.self)
    }

    /// Ends the session `token` names, if it is one.
    func end(session token: String) async throws {
        if let session = DashboardSession(parsing: token) { try await sessions.end(session) }
    }

    /// The dashboard's cookies the browser sent, by name (the first of a name wins, as
    /// Hummingbird's `Request.cookies` reads them).
    static func read(_ request: Request) -> [String: String] {
        let sent = request.cookies
        var cookies: [String: String] = [:]
        for name in all { cookies[name] = sent[name]?.value }
        return cookies
    }

    /// The cookie `name` holding `value`, living `maxAge` seconds (nil: the browser's session).
    /// Its values (credentials, secrets, ids, tokens) are the server's own, of base64url and `.`.
    func set(_ name: String, _ value: String, maxAge: Int? = nil) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/app", secure: secure, httpOnly: true, sameSite: .strict)
    }

    func clear(_ name: String) -> Cookie {
        set(name, "", maxAge: 0)
    }

    /// A new form token: 256 random bits.
    static func newCSRFToken() -> String { SecretToken.randomSecret() }

    /// The form token of the session whose cookie holds `session`: an HMAC of it under the
    /// server's key, so that it is this session's alone (a token planted with a cookie, or kept
    /// from before a sign-in or a sign-out, is not it) and the same on every instance. Nil while
    /// the server's secret is not loaded.
    func formToken(for session: String) -> String? {
        guard let key = try? formKey() else { return nil }
        return HMAC<SHA256>.authenticationCode(for: Array(session.utf8), using: key).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether a form's token is the one this browser's forms carry (`WebSession.csrf`): a page
    /// of another site can neither read it nor make the browser send the cookies it is bound to
    /// (`SameSite=Strict`).
    static func checkCSRF(form token: String?, expected: String) throws(FamilySyncError) {
        guard let token, !expected.isEmpty, constantTimeEquals(Array(token.utf8), Array(expected.utf8)) else {
            throw FamilySyncError(.accessDenied, "This form is out of date or came from another site; reload the page and try again.")
        }
    }
}
