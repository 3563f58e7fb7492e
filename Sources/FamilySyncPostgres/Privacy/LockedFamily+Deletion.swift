import FamilySyncCore
import Foundation
import PostgresNIO

extension LockedFamily {
    /// The family gone, and everything of it (PROTOCOL §15.3), in its one transaction; the polls
    /// held on it are told.
    ///
    /// Each table is emptied of the family by name, every child before its parents, so that no
    /// deletion waits on a foreign key's cascade: on Citus each shard fires its cascade triggers
    /// in an order of its own, and a member deleted by cascade was checked against a pairing
    /// naming it (`pairings_member_fkey`) before the cascade from `devices` had removed that
    /// pairing (`FamilyDeletionOrderTests`, which runs this with every cascade removed). The
    /// cascades stay, for a table added without a line here.
    func deleteFamily(tablesChildrenFirst tables: [String]) async throws {
        for table in tables {
            var binds = PostgresBindings()
            binds.append(id)
            try await connection.rows(PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE family_id = $1", binds: binds), logger: logger)
        }
        // The lookup tables hold no foreign key to the family (they are keyed by what is looked up).
        try await connection.rows("DELETE FROM recovery_codes WHERE family_id = \(id)", logger: logger)
        try await connection.rows("DELETE FROM apple_subjects WHERE family_id = \(id)", logger: logger)
        // A sign-in a parent of the family took names its pairing and device until the hourly
        // purge: it goes with the family, not a day later.
        try await connection.rows("DELETE FROM sign_ins WHERE family_id = \(id)", logger: logger)
        try await publish([.family(id)])
    }
}
