/// The answer of `GET /v1/poll` (PROTOCOL §6). Like a silent push it carries no record data: the
/// client fetches changes (§5.5) when `changed` is true.
public struct PollResponse: Codable, Sendable, Equatable {
    public var changed: Bool
    /// Zones the caller sees that changed after `since` (deleted ones included); with `changed` only.
    public var zones: [String]?
    /// Devices the caller sees whose status, role or name changed, or that are new (an accepted
    /// pairing); with `changed` only. An addition to §6: a parent's pairing screen and a child
    /// awaiting confirmation wake on these.
    public var devices: [String]?
    /// The token for the next poll: the one sent when nothing changed.
    public var changeToken: String

    package enum CodingKeys: CodingKey, CaseIterable { case changeToken, changed, devices, zones }

    public init(changed: Bool, zones: [String]? = nil, devices: [String]? = nil, changeToken: String) {
        self.changed = changed
        self.zones = zones
        self.devices = devices
        self.changeToken = changeToken
    }
}
