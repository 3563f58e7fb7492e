import FamilySyncProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a device's sync engine keeps between launches (CKSyncEngine's state serialization): where
/// it is in the change feeds, and the usage it has not yet delivered.
public struct SyncState: Codable, Sendable, Equatable {
    /// Names the credential these tokens were fetched with (the app's Keychain item, the CLI's
    /// device): tokens are bound to one device, so state saved under another is started over.
    public var credentialReference: String?
    /// The database token of the last complete fetch (`GET /v1/changes`), nil before the first.
    public var databaseToken: String?
    /// Each zone's token of the last fetch.
    public var zoneTokens: [String: String]
    /// Usage records recorded but not yet accepted by the server, oldest first.
    public var pendingUsage: [UsageRecordBody]
    /// The monitoring extension's errors not yet delivered (§10), oldest first.
    public var pendingHealthErrors: [ExtensionErrorBody]
    /// The app's changes not yet sent (`SyncEngine.add`), in the order it made them, merged per
    /// record (`Outbox`).
    public var pendingChanges: [PendingChange]
    /// The request on its way, with its idempotency key: sent again as it is until answered.
    public var sending: SendingBatch?

    public init(
        credentialReference: String? = nil, databaseToken: String? = nil, zoneTokens: [String: String] = [:], pendingUsage: [UsageRecordBody] = [],
        pendingHealthErrors: [ExtensionErrorBody] = [], pendingChanges: [PendingChange] = [], sending: SendingBatch? = nil
    ) {
        self.credentialReference = credentialReference
        self.databaseToken = databaseToken
        self.zoneTokens = zoneTokens
        self.pendingUsage = pendingUsage
        self.pendingHealthErrors = pendingHealthErrors
        self.pendingChanges = pendingChanges
        self.sending = sending
    }

    /// Every change not yet answered: the one on its way first.
    public var unsentChanges: [PendingChange] {
        (sending?.changes ?? []) + pendingChanges
    }

    enum CodingKeys: String, CodingKey { case credentialReference, databaseToken, zoneTokens, pendingUsage, pendingHealthErrors, pendingChanges, sending }

    /// State saved before a member existed reads with it empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        credentialReference = try container.decodeIfPresent(String.self, forKey: .credentialReference)
        databaseToken = try container.decodeIfPresent(String.self, forKey: .databaseToken)
        zoneTokens = try container.decodeIfPresent([String: String].self, forKey: .zoneTokens) ?? [:]
        pendingUsage = try container.decodeIfPresent([UsageRecordBody].self, forKey: .pendingUsage) ?? []
        pendingHealthErrors = try container.decodeIfPresent([ExtensionErrorBody].self, forKey: .pendingHealthErrors) ?? []
        pendingChanges = try container.decodeIfPresent([PendingChange].self, forKey: .pendingChanges) ?? []
        sending = try container.decodeIfPresent(SendingBatch.self, forKey: .sending)
    }
}

/// Where a sync engine and a usage queue keep their state. Both change it at once (the engine its
/// tokens, the queue its records, perhaps in two processes sharing one file), so a change is a
/// read, a change and a write that no other `update` may come between; it must be durable when
/// `update` returns, since the queue drops a record only after the state without it is saved.
public protocol SyncStateStore: Sendable {
    func load() throws -> SyncState
    func update<Result>(_ change: (inout SyncState) throws -> Result) throws -> Result
}

/// A `SyncStateStore` in one JSON file. An update holds an exclusive `flock` on a lock file
/// beside it (so other updates, in this process or another, wait), reads the file, and writes it
/// anew with `PrivateFile`: durable, never half written, readable by its owner only.
public struct FileSyncStateStore: SyncStateStore {
    public let url: URL
    /// The file's data protection class on iOS, watchOS and tvOS. The default lets a
    /// DeviceActivity monitor extension, or the app woken by a push, read and write the state
    /// while the device is locked (after its first unlock since starting).
    public let protection: FileProtectionType

    public init(url: URL, protection: FileProtectionType = .completeUntilFirstUserAuthentication) {
        self.url = url
        self.protection = protection
    }

    /// The state shared by an app and its extensions, in their app group's container (as
    /// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)` gives it):
    /// `Library/Application Support/FamilySync/<name>.json`. Every process that opens the same
    /// name shares one state, its updates taking turns.
    public init(appGroupContainer container: URL, name: String = "sync-state", protection: FileProtectionType = .completeUntilFirstUserAuthentication) {
        let folder = container.appendingPathComponent("Library/Application Support/FamilySync", isDirectory: true)
        self.init(url: folder.appendingPathComponent("\(name).json"), protection: protection)
    }

    public func load() throws -> SyncState {
        guard FileManager.default.fileExists(atPath: url.path) else { return SyncState() }
        return try WireCoding.makeDecoder().decode(SyncState.self, from: Data(contentsOf: url))
    }

    public func update<Result>(_ change: (inout SyncState) throws -> Result) throws -> Result {
        try PrivateFile.makeDirectory(url.deletingLastPathComponent(), protection: protection)
        let lockPath = url.path + ".lock"
        let creating = !FileManager.default.fileExists(atPath: lockPath)
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: lockPath]) }
        // Opened by every update, locked or not: in the state's class, not the container's.
        if creating { try PrivateFile.protect(URL(fileURLWithPath: lockPath), protection) }
        // Closing the descriptor releases the lock.
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw CocoaError(.fileLocking, userInfo: [NSFilePathErrorKey: lockPath]) }
        }
        var state = try load()
        let result = try change(&state)
        try PrivateFile.write(try WireCoding.makeEncoder().encode(state), to: url, protection: protection)
        return result
    }
}
