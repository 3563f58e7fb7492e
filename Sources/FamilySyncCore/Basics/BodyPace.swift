/// The pace a request body must keep (PROTOCOL §1.3): it may take `grace`, and each further
/// `bytesPerSecond` bytes it has delivered buys it a second more. A body that falls behind is
/// answered `408 REQUEST_TIMEOUT` and its connection closed. A client on any working link keeps
/// the pace without noticing; one that sends a byte now and then to hold a connection open (and
/// the memory its body has taken) does not.
public struct BodyPace: Sendable, Equatable {
    public var grace: Duration
    public var bytesPerSecond: Int

    public static let standard = BodyPace(grace: .seconds(10), bytesPerSecond: 8192)

    public init(grace: Duration, bytesPerSecond: Int) {
        precondition(bytesPerSecond > 0, "a pace of no bytes a second is no pace")
        self.grace = grace
        self.bytesPerSecond = bytesPerSecond
    }

    /// How long after its start a body that has delivered `received` bytes may go on arriving.
    public func allowance(received: Int) -> Duration {
        grace + .seconds(received / bytesPerSecond) + .nanoseconds(Int64(received % bytesPerSecond) * 1_000_000_000 / Int64(bytesPerSecond))
    }
}
