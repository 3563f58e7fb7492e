/// Why migrations could not be applied. Each reads as one line for the operator.
public enum MigrationError: Error, Equatable, CustomStringConvertible {
    /// The database was migrated by a newer FamilySync: running this binary against it could corrupt data.
    case databaseNewerThanBinary(databaseVersion: Int, binaryVersion: Int)
    /// A migration that was applied differs from the one this binary carries.
    case changedAfterApplied(version: Int, name: String)
    case failed(version: Int, name: String, reason: String)

    public var description: String {
        switch self {
        case .databaseNewerThanBinary(let databaseVersion, let binaryVersion):
            "the database schema is at version \(databaseVersion), newer than this binary knows (\(binaryVersion)); run a FamilySync release that includes migration \(databaseVersion)"
        case .changedAfterApplied(let version, let name):
            "migration \(version) (\(name)) differs from the one applied to this database; released migrations must not be edited"
        case .failed(let version, let name, let reason):
            "migration \(version) (\(name)) failed: \(reason)"
        }
    }
}
