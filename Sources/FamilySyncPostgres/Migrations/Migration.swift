/// One numbered file of `schema/`, as the binary carries it.
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// The file name it came from: `0001_families.sql`.
    public var fileName: String {
        let number = String(version)
        return String(repeating: "0", count: max(0, 4 - number.count)) + number + "_" + name + ".sql"
    }

    /// Every migration of this build, in order.
    public static var all: [Migration] { embedded }
}
