/// The rules of a long poll (PROTOCOL §6).
public enum LongPollRules {
    public static let defaultTimeoutSeconds = 30.0
    public static let maximumTimeoutSeconds = 60.0
    /// Polls one device may hold at once; a further one answers the oldest `changed: false`.
    public static let maximumPerDevice = 4

    /// `timeout`: seconds from 0 to 60 (fractions allowed), 30 when absent.
    public static func timeout(from text: String?) throws(FamilySyncError) -> Duration {
        guard let text else { return .seconds(defaultTimeoutSeconds) }
        guard let seconds = Double(text), seconds.isFinite, (0...maximumTimeoutSeconds).contains(seconds) else {
            throw .badRequest("timeout must be a number of seconds from 0 to 60.", field: "timeout")
        }
        return .milliseconds((seconds * 1000).rounded())
    }
}
