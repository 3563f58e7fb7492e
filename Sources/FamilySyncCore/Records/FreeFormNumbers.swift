/// What a number in a free-form value (a record's `fields`, a custom command's payload) may be:
/// those values hold numbers as IEEE doubles, so a number with a fraction or an exponent is a
/// double as JSON means it, and an integer written as one is kept only where every integer is
/// exact, within ±2⁵³. A larger one is refused rather than stored rounded (9007199254740993 would
/// come back 9007199254740992); an app that needs more digits sends a string.
public enum FreeFormNumbers {
    public static let largestExactInteger: Int64 = 1 << 53

    /// Whether the number written as `text` (a JSON number) is kept as it was sent.
    public static func isKept(_ text: some StringProtocol) -> Bool {
        let digits = text.utf8.count - (text.hasPrefix("-") ? 1 : 0)
        // Fifteen digits are below 2⁵³ whatever they are: the common case decides without parsing.
        guard digits > 15, !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) else { return true }
        guard let value = Int64(text) else { return false }
        return value.magnitude <= largestExactInteger.magnitude
    }
}
