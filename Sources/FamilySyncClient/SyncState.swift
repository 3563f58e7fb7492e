import FamilySyncProtocol
import Foundation

/// What a device's sync engine keeps between launches (CKSyncEngine's state serialization): where
/// it is in the change feeds, and the usage it has not yet delivered.
public struct SyncState: Codable, Sendable, Equatable {
    /// Names the credential these tokens were fetched with (the app's Keychain item, the CLI's
    /// profile): tokens are bound to one device, so state saved under another is started over.
    public var credentialReference: String?
    /// The database token of the last fetch (`GET /v1/changes`), nil before the first.
    public var databaseToken: String?
    /// Each zone's token of the last fetch.
    public var zoneTokens: [String: String]
    /// Usage records recorded but not yet accepted by the server, oldest first.
    public var pendingUsage: [UsageRecordBody]

    public init(credentialReference: String? = nil, databaseToken: String? = nil, zoneTokens: [String: String] = [:], pendingUsage: [UsageRecordBody] = []) {
        self.credentialReference = credentialReference
        self.databaseToken = databaseToken
        self.zoneTokens = zoneTokens
        self.pendingUsage = pendingUsage
    }
}

/// Where a sync engine keeps its state. Implementations must make `save` durable before returning:
/// the engine drops a queued upload only after the state without it is saved.
public protocol SyncStateStore: Sendable {
    func load() async throws -> SyncState
    func save(_ state: SyncState) async throws
}

/// A `SyncStateStore` in one JSON file, written by `PrivateFile`: durable when `save` returns, never
/// half written, readable by its owner only.
public struct FileSyncStateStore: SyncStateStore {
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    public func load() async throws -> SyncState {
        guard FileManager.default.fileExists(atPath: url.path) else { return SyncState() }
        return try WireCoding.makeDecoder().decode(SyncState.self, from: Data(contentsOf: url))
    }

    public func save(_ state: SyncState) async throws {
        try PrivateFile.write(try WireCoding.makeEncoder().encode(state), to: url)
    }
}
