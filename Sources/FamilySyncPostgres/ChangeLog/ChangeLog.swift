import FamilySyncCore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The one way to change a family's data (docs/architecture.md, "One change log"): a transaction
/// that first takes the family's row lock, then numbers every change from the family's sequence,
/// writes records and tombstones, and tells the polls on commit. Every writer takes the locks in
/// that order, so two writers of a family queue instead of deadlocking, and readers see a family's
/// changes in sequence order with no gaps (schema 0003).
public struct ChangeLog: Sendable {
    let database: Database
    let logger: Logger
    /// Push on (§12): the outbox rows of each change are written with it.
    let outbox: PushOutbox?
    /// This instance's credential cache: a device changed here is dropped from it on commit.
    let knownDevices: KnownDevices?

    public init(database: Database, logger: Logger, outbox: PushOutbox? = nil, knownDevices: KnownDevices? = nil) {
        self.database = database
        self.logger = logger
        self.outbox = outbox
        self.knownDevices = knownDevices
    }

    /// Runs `body` in one transaction that holds `familyID`'s lock from the start, as `writer`'s
    /// change (its audit entries, its request's idempotency key); 404 for a family that does not
    /// exist. The transaction starts in the family's turn of this instance (`FamilyWriteQueue`),
    /// so its writers wait there, not on pool connections.
    public func write<Result: Sendable>(
        family familyID: UUID, as writer: ChangeWriter, _ body: @escaping @Sendable (LockedFamily) async throws -> Result
    ) async throws -> Result {
        let logger = logger, outbox = outbox, database = database
        let published = PublishedNotices()
        // With tracing on: the write as a span, and in it the wait for the family's turn, a
        // connection and the family's row lock as one span (`family.lock_wait`).
        let result = try await Traced.span("family.write") { _ in
            let locking = Traced.start("family.lock_wait")
            // A write refused before it holds the lock (its family busy, no connection) ends it here.
            defer { locking?.end() }
            return try await database.families.inTurn(of: familyID) {
                try await database.inTransaction(logger: logger) { connection in
                    var family = try await LockedFamily.lock(familyID, on: connection, logger: logger, outbox: outbox, published: published)
                    family.actor = writer.actor
                    locking?.end()
                    // The request's idempotency key commits with its first write, or not at all.
                    let claim = writer.claim.flatMap { $0.take(for: familyID) ? $0 : nil }
                    do {
                        if let claim { try await family.writeIdempotencyKey(claim) }
                        let result = try await body(family)
                        try await family.queuePushes()
                        return result
                    } catch {
                        claim?.release()
                        throw error
                    }
                }
            }
        }
        // Committed: this instance stops trusting what it knew of a changed device before it
        // answers; the other instances do when the notices reach them.
        knownDevices?.invalidate(published.notices)
        return result
    }

    /// Creates a family and runs `body` in the creating transaction: the family's row (its
    /// creation is change 1, so a token at 0 has seen nothing), its `family` zone, and whatever
    /// `body` makes, all numbered 1.
    public func create<Result: Sendable>(family familyID: UUID, now: Date, _ body: @escaping @Sendable (LockedFamily) async throws -> Result) async throws -> Result {
        let logger = logger
        return try await database.inTransaction(logger: logger) { connection in
            try await connection.rows("INSERT INTO families (family_id, created_at, change_seq) VALUES (\(familyID), \(now), 1)", logger: logger)
            var family = LockedFamily(id: familyID, connection: connection, logger: logger, sequenceAtLock: 1, pendingPushes: nil, published: PublishedNotices())
            family.creating = true
            _ = try await family.createZone("family", now: now)
            return try await body(family)
        }
    }

    /// After a restore from a backup older than the last write: every change token handed out
    /// before is refused (410 `CHANGE_TOKEN_EXPIRED`), so each device fetches its zones whole
    /// (§5.5) instead of trusting a token the restored history never reached.
    ///
    /// Each family's sequence moves `fenceGap` ahead and its horizon with it. A token from after the
    /// backup lies between the restored sequence and the new horizon, so the horizon check refuses
    /// it now and after any number of new writes (which number from above the horizon). Without
    /// the fence such a token is refused only until new writes carry the sequence past it, and then
    /// it silently skips the writes in between. Run before servers start on the database, so
    /// nothing is notified. Returns how many families there are.
    @discardableResult
    public static func fenceChangeTokens(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        // One statement: it takes each family's row lock as a writer would, and a writer holds
        // one family's at a time, so the two only queue.
        try await connection.rows(
            "UPDATE families SET change_seq = change_seq + \(fenceGap), horizon_seq = change_seq + \(fenceGap) RETURNING family_id", logger: logger
        ).count
    }

    /// More changes than any family makes between a backup and its restore.
    public static let fenceGap: Int64 = 1 << 40
}
