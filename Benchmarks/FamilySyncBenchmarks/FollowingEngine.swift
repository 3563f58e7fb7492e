import FamilySyncClient
import FamilySyncProtocol
import Foundation
import Synchronization

/// A device's `SyncEngine`, running, with a consumer that keeps what it was handed: the latest
/// change tag of every record, and any version handed over twice.
final class FollowingEngine: Sendable {
    struct Seen {
        /// "zone/recordName" → the latest change tag handed over.
        var latest: [String: String] = [:]
        /// "zone/recordName#tag" of every version handed over.
        var versions: Set<String> = []
        var repeated: [String] = []
        var waits: [String: Int] = [:]
        var stopped = false
        var events = 0
    }

    let client: FamilySyncClient
    private let engine: SyncEngine
    private let running: Task<Void, Never>
    private let consuming: Task<Void, Never>
    /// Shared with the consumer's task.
    private final class Log: Sendable {
        let seen = Mutex(Seen())
    }

    private let log = Log()
    var seen: Seen { log.seen.withLock { $0 } }

    init(client: FamilySyncClient, stateFile: String, reference: String) {
        self.client = client
        let engine = SyncEngine(client: client, store: FileSyncStateStore(url: URL(fileURLWithPath: stateFile)), credentialReference: reference, pollTimeout: 30)
        self.engine = engine
        running = Task { await engine.run() }
        let log = log
        consuming = Task {
            for await event in engine.events {
                log.seen.withLock { seen in
                    seen.events += 1
                    switch event {
                    case .changes(let zone, let records):
                        for record in records {
                            let key = zone + "/" + record.recordName
                            let tag = record.recordChangeTag ?? "-"
                            if !seen.versions.insert(key + "#" + tag).inserted { seen.repeated.append(key + "#" + tag) }
                            seen.latest[key] = record.deleted == true ? nil : tag
                        }
                    case .zoneReset(let zone), .zoneDeleted(let zone):
                        seen.latest = seen.latest.filter { !$0.key.hasPrefix(zone + "/") }
                    case .waiting(let error, _):
                        seen.waits[error.code.rawValue, default: 0] += 1
                    case .stopped:
                        seen.stopped = true
                    case .sent:
                        break
                    }
                }
            }
        }
    }

    /// What the server holds now for every zone this device sees: "zone/recordName" → tag.
    func serverState() async throws -> [String: String] {
        var state: [String: String] = [:]
        for zone in try await client.zones() {
            var token: String?
            repeat {
                let page = try await client.zoneChanges(zone.zoneName, since: token)
                for record in page.records where record.deleted != true {
                    state[zone.zoneName + "/" + record.recordName] = record.recordChangeTag ?? "-"
                }
                token = page.moreComing ? page.changeToken : nil
            } while token != nil
        }
        return state
    }

    func stop() async {
        running.cancel()
        await engine.stop()
        _ = await running.value
        _ = await consuming.value
    }
}
