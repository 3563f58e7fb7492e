import Foundation
import PostgresNIO

/// Marks the caller's push registration, if it has one, as held by a poll until `holdUntil` (§12).
struct PushHoldStatement: RowStatement {
    /// Named here: PostgresNIO's default, `String(reflecting:)`, is worked out on every run.
    static let name = "familysync_push_hold"
    static let sql = """
        UPDATE device_push_tokens SET poll_held_until = $1
        WHERE family_id = $2 AND device_id = $3
        RETURNING 1
        """
    let holdUntil: Date
    let familyID: UUID
    let deviceID: UUID

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(holdUntil)
        bindings.append(familyID)
        bindings.append(deviceID)
        return bindings
    }
}
