/// Body of `GET /health/live` and a successful `GET /health/ready`.
public struct ProbeStatus: Codable, Sendable, Equatable {
    /// `live` or `ready`.
    public var status: String
    /// The newest schema migration applied, for `ready`.
    public var schemaVersion: Int?

    public init(status: String, schemaVersion: Int? = nil) {
        self.status = status
        self.schemaVersion = schemaVersion
    }
}
