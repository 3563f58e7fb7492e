import Foundation

/// Who wrote a record, and when by their own clock: what PROTOCOL §5.4 resolves conflicts by.
public struct WriteStamp: Sendable, Equatable {
    public var clientModifiedAt: Date
    public var role: DeviceRole
    public var deviceID: UUID

    public init(clientModifiedAt: Date, role: DeviceRole, deviceID: UUID) {
        self.clientModifiedAt = clientModifiedAt
        self.role = role
        self.deviceID = deviceID
    }
}

/// Last writer wins, parent wins ties (PROTOCOL §5.4). A pure function of the two stamps, so the
/// outcome of concurrent writes does not depend on the order they arrive in.
public enum ConflictResolver {
    /// A client clock may run ahead by this much; later claims are clamped to it.
    public static let clockAllowance: TimeInterval = 60

    /// The stamp as stored: `clientModifiedAt` no later than the server's clock plus the allowance,
    /// in whole milliseconds (the precision instants travel with).
    public static func clamp(_ stamp: WriteStamp, serverNow: Date) -> WriteStamp {
        var clamped = stamp
        let bound = serverNow.addingTimeInterval(clockAllowance)
        let time = min(stamp.clientModifiedAt, bound)
        clamped.clientModifiedAt = Date(timeIntervalSince1970: (time.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        return clamped
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// Whether the incoming write beats the stored one: the greater `(clientModifiedAt, role,
    /// deviceId)` wins, `parent` above `child`, device ids compared as lowercase strings.
    public static func incomingWins(incoming: WriteStamp, stored: WriteStamp) -> Bool {
        // Whole milliseconds: a stored instant comes back from the database with floating-point
        // noise below that, which must not decide a tie.
        let incomingTime = milliseconds(incoming.clientModifiedAt), storedTime = milliseconds(stored.clientModifiedAt)
        if incomingTime != storedTime { return incomingTime > storedTime }
        if incoming.role != stored.role { return incoming.role == .parent }
        return incoming.deviceID.lowercased > stored.deviceID.lowercased
    }
}
