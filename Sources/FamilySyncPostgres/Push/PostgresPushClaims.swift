import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The sender's side of the push outbox (PROTOCOL §12): due rows claimed with `FOR UPDATE SKIP
/// LOCKED` and a claim that expires, then settled by what became of each send. Two instances never
/// hold the same row; a row claimed by an instance that died is claimed again once its claim ends.
public struct PostgresPushClaims: Sendable {
    let database: Database
    let logger: Logger

    public init(database: Database, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// A claimed row.
    public struct Claim: Sendable, Equatable {
        public var pushID: Int64
        /// What a sender deletes after sending: a background row merged into since stays.
        public var version: Int32
        public var kind: PushDelivery.Kind
        public var familyID: UUID
        public var deviceID: UUID
        public var expiresAt: Date
        /// To send; nil when the device has no registration now (it was removed or moved).
        public var delivery: PushDelivery?
        /// The device holds a poll now: a background push is not needed.
        public var polling: Bool
    }

    /// Up to `limit` due rows, claimed until `now + claimFor`: not before their `not_before`, not
    /// claimed by a live claim, and background rows only `minimumInterval` after the device's last
    /// background push (coalescing: later changes merge into the waiting row meanwhile). The
    /// families with due rows are found without a lock, the earliest first; then each family's
    /// rows are claimed by a statement of their own, `FOR UPDATE SKIP LOCKED`, which checks again
    /// what it claims. Citus runs a locking read only within one shard, and a family is on one.
    public func claim(now: Date, limit: Int, claimFor: TimeInterval, minimumInterval: TimeInterval) async throws -> [Claim] {
        let backgroundBefore = now.addingTimeInterval(-minimumInterval)
        let families = try await database.rows(
            """
            SELECT o.family_id FROM push_outbox o
            LEFT JOIN device_push_tokens t ON t.family_id = o.family_id AND t.device_id = o.device_id
            WHERE \(claimableAt: now, backgroundBefore: backgroundBefore)
            GROUP BY o.family_id ORDER BY min(o.not_before), o.family_id LIMIT \(limit)
            """,
            logger: logger
        ).map { try $0.decode(UUID.self) }
        var claims: [Claim] = []
        for familyID in families where claims.count < limit {
            claims += try await claim(
                in: familyID, now: now, backgroundBefore: backgroundBefore, limit: limit - claims.count, until: now.addingTimeInterval(claimFor)
            )
        }
        return claims
    }

    private func claim(in familyID: UUID, now: Date, backgroundBefore: Date, limit: Int, until: Date) async throws -> [Claim] {
        // Every table named by the family's id (the join too): Citus routes it to the family's shard.
        let rows = try await database.rows(
            """
            WITH due AS (
                SELECT o.family_id, o.push_id, t.token, t.topic, t.environment, coalesce(t.poll_held_until > \(now), false) AS polling
                FROM push_outbox o
                LEFT JOIN device_push_tokens t ON t.family_id = \(familyID) AND t.device_id = o.device_id
                WHERE o.family_id = \(familyID) AND \(claimableAt: now, backgroundBefore: backgroundBefore)
                ORDER BY o.not_before, o.push_id
                LIMIT \(limit)
                FOR UPDATE OF o SKIP LOCKED
            )
            UPDATE push_outbox o SET claimed_until = \(until), attempts = o.attempts + 1
            FROM due WHERE o.family_id = \(familyID) AND o.push_id = due.push_id
            RETURNING o.push_id, o.version, o.kind, o.family_id, o.device_id, o.apns_id, o.payload, o.created_at, o.expires_at, o.attempts,
                      due.token, due.topic, due.environment, due.polling
            """,
            logger: logger
        )
        return try rows.map { row in
            let cells = try row.decode((Int64, Int32, String, UUID, UUID, UUID, RecordFields, Date, Date, Int32, String?, String?, String?, Bool).self)
            let (id, version, kind, family, device, apnsID, content, created, expires, attempts) =
                (cells.0, cells.1, cells.2, cells.3, cells.4, cells.5, cells.6, cells.7, cells.8, cells.9)
            let kindValue = PushDelivery.Kind(rawValue: kind) ?? .background
            var delivery: PushDelivery?
            if let token = cells.10, let topic = cells.11, let environment = cells.12.flatMap(PushRegistration.Environment.init(rawValue:)) {
                var zones: [String] = []
                if case .array(let names)? = content.value["zones"] {
                    zones = names.compactMap { if case .string(let name) = $0 { name } else { nil } }
                }
                let payload = kindValue == .background ? BackgroundPush.payload(zones: zones) : AlertPush.payload(content: content.value)
                delivery = PushDelivery(
                    pushID: id, apnsID: apnsID, familyID: family, deviceID: device, kind: kindValue,
                    registration: PushRegistration(provider: .apns, token: token, topic: topic, environment: environment), payload: payload,
                    createdAt: created, expiresAt: expires, attempts: Int(attempts)
                )
            }
            return Claim(
                pushID: id, version: version, kind: kindValue, familyID: family, deviceID: device, expiresAt: expires, delivery: delivery, polling: cells.13
            )
        }
    }

    /// What a sender decided for a claimed row.
    public enum Settlement: Sendable, Equatable {
        /// Sent: done, unless changes merged into it meanwhile (then it waits for the interval).
        case sent(at: Date)
        /// The token is dead: the registration goes if it still holds that token, and the row.
        case tokenGone(String)
        /// Again at that instant (the claim ends).
        case retry(at: Date)
        /// Not to be sent (expired, refused, no registration, the device polls).
        case dropped
    }

    public func settle(_ claim: Claim, _ settlement: Settlement) async throws {
        let logger = logger
        switch settlement {
        case .sent(let now):
            try await database.inTransaction(logger: logger) { connection in
                if claim.kind == .background {
                    try await connection.rows(
                        "UPDATE device_push_tokens SET last_background_at = \(now) WHERE family_id = \(claim.familyID) AND device_id = \(claim.deviceID)",
                        logger: logger
                    )
                }
                let deleted = try await connection.rows(
                    "DELETE FROM push_outbox WHERE family_id = \(claim.familyID) AND push_id = \(claim.pushID) AND version = \(claim.version) RETURNING push_id", logger: logger
                )
                if deleted.isEmpty {
                    try await connection.rows(
                        "UPDATE push_outbox SET claimed_until = NULL, attempts = 0 WHERE family_id = \(claim.familyID) AND push_id = \(claim.pushID)", logger: logger
                    )
                }
            }
        case .tokenGone(let token):
            try await database.inTransaction(logger: logger) { connection in
                try await connection.rows(
                    "DELETE FROM device_push_tokens WHERE family_id = \(claim.familyID) AND device_id = \(claim.deviceID) AND token = \(token)",
                    logger: logger
                )
                try await connection.rows("DELETE FROM push_outbox WHERE family_id = \(claim.familyID) AND push_id = \(claim.pushID)", logger: logger)
            }
        case .retry(let at):
            try await database.rows("UPDATE push_outbox SET claimed_until = NULL, not_before = \(at) WHERE family_id = \(claim.familyID) AND push_id = \(claim.pushID)", logger: logger)
        case .dropped:
            try await database.rows("DELETE FROM push_outbox WHERE family_id = \(claim.familyID) AND push_id = \(claim.pushID)", logger: logger)
        }
    }

    /// Rows waiting (`familysync_push_outbox_depth`), and when the next may be claimed: its
    /// `not_before`, its device's coalescing interval, or the end of another sender's claim.
    public func depth(minimumInterval: TimeInterval) async throws -> (count: Int, nextDue: Date?) {
        let rows = try await database.rows(
            """
            SELECT count(*), min(greatest(o.not_before, o.claimed_until,
                                          CASE WHEN o.kind = 'background' THEN t.last_background_at + make_interval(secs => \(minimumInterval)) END))
            FROM push_outbox o LEFT JOIN device_push_tokens t ON t.family_id = o.family_id AND t.device_id = o.device_id
            """,
            logger: logger
        )
        guard let (count, next) = try rows.first?.decode((Int64, Date?).self) else { return (0, nil) }
        return (Int(count), next)
    }
}

extension PostgresQuery.StringInterpolation {
    /// An outbox row `o`, with its device's registration `t`, that may be claimed at `now`: due,
    /// not under a live claim, and a background row only if the device's last background push
    /// was at or before `backgroundBefore`.
    fileprivate mutating func appendInterpolation(claimableAt now: Date, backgroundBefore: Date) {
        appendLiteral("o.not_before <= ")
        appendInterpolation(now)
        appendLiteral(" AND (o.claimed_until IS NULL OR o.claimed_until <= ")
        appendInterpolation(now)
        appendLiteral(") AND (o.kind = 'alert' OR t.last_background_at IS NULL OR t.last_background_at <= ")
        appendInterpolation(backgroundBefore)
        appendLiteral(")")
    }
}
