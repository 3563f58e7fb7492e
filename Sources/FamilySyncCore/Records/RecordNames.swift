/// Names of records and zones (PROTOCOL §1).
public enum RecordNames {
    /// 1–255 of `[A-Za-z0-9._:-]`, not only dots.
    public static func checkRecordName(_ name: String, field: String) throws(FamilySyncError) {
        guard (1...255).contains(name.utf8.count), name.utf8.allSatisfy({ isAlphanumeric($0) || $0 == 0x2e || $0 == 0x5f || $0 == 0x3a || $0 == 0x2d }) else {
            throw .badRequest("A record name is 1–255 of A–Z, a–z, 0–9, '.', '_', ':' and '-'.", field: field)
        }
        guard !onlyDots(name) else { throw .badRequest(dotsReason("record"), field: field) }
    }

    /// Whether `tail` can follow a prefix such as `budget-` in a record name: 1–200 of the record
    /// name's characters.
    public static func isRecordNameTail(_ tail: String) -> Bool {
        (1...200).contains(tail.utf8.count) && tail.utf8.allSatisfy { isAlphanumeric($0) || $0 == 0x2e || $0 == 0x5f || $0 == 0x3a || $0 == 0x2d }
    }

    /// 1–64 of `[a-z0-9._-]`, not only dots.
    public static func checkZoneName(_ name: String, field: String) throws(FamilySyncError) {
        guard (1...64).contains(name.utf8.count),
            name.utf8.allSatisfy({ (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2e || $0 == 0x5f || $0 == 0x2d })
        else {
            throw .badRequest("A zone name is 1–64 of a–z, 0–9, '.', '_' and '-'.", field: field)
        }
        guard !onlyDots(name) else { throw .badRequest(dotsReason("zone"), field: field) }
    }

    /// `.`, `..`, `...`: names a client that normalises its URLs (as browsers and most HTTP
    /// libraries do) turns into another path, `/v1/zones/../changes` into `/v1/changes`.
    private static func onlyDots(_ name: String) -> Bool {
        name.utf8.allSatisfy { $0 == 0x2e }
    }

    private static func dotsReason(_ kind: String) -> String {
        "A \(kind) name of dots alone would name another path in a URL; add a letter or digit."
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
    }
}
