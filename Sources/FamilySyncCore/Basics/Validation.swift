import Foundation

/// Checks of the values clients send, each failing with `BAD_REQUEST` naming the field.
public enum Validation {
    public static let maximumNameLength = 100

    /// 1–100 characters after trimming white space, no control characters.
    public static func name(_ value: String, field: String) throws(FamilySyncError) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .badRequest("The name must not be empty.", field: field) }
        guard trimmed.count <= maximumNameLength else {
            throw .badRequest("The name is longer than \(maximumNameLength) characters.", field: field)
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .badRequest("The name contains control characters.", field: field)
        }
        guard !trimmed.unicodeScalars.contains(where: isHiddenFormat) else {
            throw .badRequest("The name contains an invisible formatting character (such as a direction override or a zero-width space).", field: field)
        }
        return trimmed
    }

    /// A format character (Unicode's Cf) that shows nothing and can make a name read as another:
    /// a direction override turns "Johnny's iPad\u{202E}dapi" around, a zero-width space makes two
    /// names that look the same differ. The joiners that emoji and scripts need (U+200C, U+200D)
    /// and the tags of subdivision flags (U+E0020–U+E007F) are kept.
    private static func isHiddenFormat(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.properties.generalCategory == .format else { return false }
        return !(scalar.value == 0x200C || scalar.value == 0x200D || (0xE0020...0xE007F).contains(scalar.value))
    }

    /// An IANA time zone name such as `Europe/Berlin`, as the tz database spells it. (Foundation's
    /// list of known names omits some valid ones, such as Asia/Kolkata, so the check is that the
    /// database resolves the name to itself, which also refuses offsets such as `GMT+5`.)
    public static func timeZone(_ value: String, field: String) throws(FamilySyncError) -> String {
        guard value == "UTC" || (value.utf8.count <= 64 && TimeZone(identifier: value)?.identifier == value) else {
            throw .badRequest("'\(value.prefix(64))' is not an IANA time zone name.", field: field)
        }
        return value
    }

    public static func uuid(_ value: String, field: String) throws(FamilySyncError) -> UUID {
        guard let id = UUID(uuidString: value) else {
            throw .badRequest("'\(value.prefix(64))' is not a UUID.", field: field)
        }
        return id
    }
}
