/// The limits of PROTOCOL §9 that the foundation enforces. Later capabilities add theirs here
/// so that one place says what a client may send.
public struct Limits: Sendable, Equatable {
    /// Largest request body accepted, checked before the body is read in full.
    public var maxBodyBytes: Int

    public static let defaultMaxBodyBytes = 4 * 1024 * 1024

    public init(maxBodyBytes: Int = Limits.defaultMaxBodyBytes) {
        self.maxBodyBytes = maxBodyBytes
    }
}
