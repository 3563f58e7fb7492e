import Crypto
import FamilySyncCore
import Synchronization

/// The key change tokens are signed with: loaded from the database (or configuration) before the
/// server accepts requests, then shared by the controllers.
package final class ChangeTokenKeyring: Sendable {
    package init() {}

    /// The key, and the key set up for HMAC once (`HMAC(key:)` hashes it twice), copied for each token.
    private let key = Mutex<(raw: SymmetricKey, keyed: HMAC<SHA256>)?>(nil)

    package func set(_ value: SymmetricKey) {
        key.withLock { $0 = (value, HMAC(key: value)) }
    }

    package func current() throws(FamilySyncError) -> SymmetricKey {
        try loaded().raw
    }

    private func keyed() throws(FamilySyncError) -> HMAC<SHA256> {
        try loaded().keyed
    }

    private func loaded() throws(FamilySyncError) -> (raw: SymmetricKey, keyed: HMAC<SHA256>) {
        guard let value = key.withLock({ $0 }) else { throw FamilySyncError.unavailable("The server is starting.") }
        return value
    }

    /// A token of the caller, for `scope`; `BAD_CHANGE_TOKEN` if it is another device's or family's.
    func decode(_ text: String, for caller: AuthenticatedDevice) throws(FamilySyncError) -> ChangeToken {
        let token = try ChangeToken.decode(text, keyed: keyed())
        guard token.familyID == caller.familyID, token.deviceID == caller.deviceID else {
            throw FamilySyncError(.badChangeToken, "The change token belongs to another device.", field: "since")
        }
        return token
    }

    /// `since` of the database's changes or the poll: the caller's, and the database's.
    func decodeDatabase(_ text: String?, for caller: AuthenticatedDevice) throws(FamilySyncError) -> ChangeToken? {
        guard let text else { return nil }
        let token = try decode(text, for: caller)
        try token.checkDatabaseScope()
        return token
    }

    func encode(_ token: ChangeToken) throws(FamilySyncError) -> String {
        token.encode(keyed: try keyed())
    }
}
