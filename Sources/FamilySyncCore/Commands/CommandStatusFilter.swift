/// The `status` filter of a child's command list (PROTOCOL §7.1): one status, or `open` (pending
/// or delivered). It applies to the status a command had when the request arrived, so a child
/// asking for its pending commands receives them even though its own fetch delivers them.
public struct CommandStatusFilter: RawRepresentable, CaseIterable, Sendable, Hashable {
    public let rawValue: String
    public let statuses: Set<CommandStatus>

    public static let pending = Self(.pending)
    public static let delivered = Self(.delivered)
    public static let executed = Self(.executed)
    public static let failed = Self(.failed)
    public static let cancelled = Self(.cancelled)
    public static let expired = Self(.expired)
    /// Not yet final: what a child still has to act on.
    public static let open = Self(rawValue: "open", statuses: [.pending, .delivered])

    public static let allCases: [Self] = CommandStatus.allCases.map(Self.init) + [.open]

    public init(_ status: CommandStatus) {
        self.init(rawValue: status.rawValue, statuses: [status])
    }

    private init(rawValue: String, statuses: Set<CommandStatus>) {
        self.rawValue = rawValue
        self.statuses = statuses
    }

    public init?(rawValue: String) {
        guard let filter = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = filter
    }

    public func matches(_ status: CommandStatus) -> Bool {
        statuses.contains(status)
    }
}
