import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Push registrations (PROTOCOL §12). A token belongs to one device at a time: registering it
/// moves it from whichever device held it, in this family or another.
public struct PostgresPushStore: Sendable {
    let database: Database
    let clock: any WallClock
    let logger: Logger

    public init(database: Database, clock: any WallClock, logger: Logger) {
        self.database = database
        self.clock = clock
        self.logger = logger
    }

    /// The device's registration, replacing its earlier one and taking the token from any other.
    public func register(_ registration: PushRegistration, for caller: AuthenticatedDevice) async throws {
        let logger = logger
        let now = clock.now()
        try await database.inTransaction(logger: logger) { connection in
            try await connection.rows(
                """
                DELETE FROM device_push_tokens
                WHERE provider = \(registration.provider.rawValue) AND token = \(registration.token)
                  AND NOT (family_id = \(caller.familyID) AND device_id = \(caller.deviceID))
                """,
                logger: logger
            )
            try await connection.rows(
                """
                INSERT INTO device_push_tokens (family_id, device_id, provider, token, topic, environment, registered_at)
                VALUES (\(caller.familyID), \(caller.deviceID), \(registration.provider.rawValue), \(registration.token), \(registration.topic),
                        \(registration.environment.rawValue), \(now))
                ON CONFLICT (family_id, device_id) DO UPDATE SET
                    provider = EXCLUDED.provider, token = EXCLUDED.token, topic = EXCLUDED.topic,
                    environment = EXCLUDED.environment, registered_at = EXCLUDED.registered_at
                """,
                logger: logger
            )
        }
    }

    /// The device's registration removed (none: nothing to do).
    public func unregister(_ caller: AuthenticatedDevice) async throws {
        try await database.rows("DELETE FROM device_push_tokens WHERE family_id = \(caller.familyID) AND device_id = \(caller.deviceID)", logger: logger)
    }
}
