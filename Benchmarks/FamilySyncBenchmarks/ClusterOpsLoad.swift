import AsyncHTTPClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// The steady load of `familysync-bench cluster-ops`: each family's parent writes a record to its
/// child's zone, the child uploads usage and holds a long poll that the parent's writes wake.
/// The parent's requests go to one instance and the child's to the other, so every wake crosses
/// instances. Every request is logged; every acknowledged write is kept with its change tag.
final class ClusterOpsLoad: Sendable {
    enum Kind: String, Sendable { case write, usage, poll }

    struct Entry: Sendable {
        /// Seconds since the run began, when the request was sent.
        var sent: Double
        var family: Int
        var kind: Kind
        /// 0: no answer within the client's deadline, or no connection.
        var status: Int
        var retryAfter: Bool
        /// The §1.1 reason was `database_unavailable`'s.
        var databaseUnavailable: Bool
        var seconds: Double
    }

    struct Wake: Sendable {
        var at: Double
        var family: Int
        var seconds: Double
    }

    struct Family: Sendable {
        var index: Int
        var id: UUID
        var parent: String
        var child: String
        var zone: String
        var parentAPI: Int
        var childAPI: Int
    }

    struct Ledger {
        var entries: [Entry] = []
        var wakes: [Wake] = []
        /// Acknowledged writes: family, record name, change tag.
        var acknowledged: [(family: Int, name: String, tag: String)] = []
        /// Per family, when each write not yet seen by a wake was sent.
        var pending: [Int: [ContinuousClock.Instant]] = [:]
    }

    let start: ContinuousClock.Instant
    let bases: [String]
    let http: HTTPClient
    let families: [Family]
    let writeInterval: Double
    let usageInterval: Double
    private let ledger = Mutex(Ledger())
    private let stopped = Atomic<Bool>(false)

    init(start: ContinuousClock.Instant, bases: [String], http: HTTPClient, families: [Family], writeInterval: Double, usageInterval: Double) {
        self.start = start
        self.bases = bases
        self.http = http
        self.families = families
        self.writeInterval = writeInterval
        self.usageInterval = usageInterval
    }

    var snapshot: Ledger { ledger.withLock { $0 } }

    func offset(_ instant: ContinuousClock.Instant) -> Double { seconds(instant - start) }

    /// One request, as the log sees it. A request that has no answer in `deadline` is a hang.
    func exchange(
        _ method: HTTPMethod, _ path: String, api: Int, credential: String, body: Data? = nil, family: Int, kind: Kind, deadline: Int64 = 15
    ) async -> (status: Int, body: ByteBuffer?, retryAfter: Int?) {
        var request = HTTPClientRequest(url: bases[api] + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(credential)")
        if let body { request.body = .bytes(ByteBuffer(data: body)) }
        let sent = ContinuousClock.now
        var status = 0, retryAfter: Int?, bytes: ByteBuffer?
        do {
            let response = try await http.execute(request, timeout: .seconds(deadline))
            bytes = try await response.body.collect(upTo: 16 << 20)
            status = Int(response.status.code)
            retryAfter = response.headers.first(name: "Retry-After").flatMap { Int($0) }
        } catch {}
        let reason = status >= 400 ? bytes.flatMap { try? WireCoding.makeDecoder().decode(ErrorResponse.self, from: Data($0.readableBytesView)).error.reason } : nil
        let entry = Entry(
            sent: offset(sent), family: family, kind: kind, status: status, retryAfter: retryAfter != nil,
            databaseUnavailable: reason == TryAgainReason.databaseUnavailable.reason, seconds: seconds(.now - sent)
        )
        ledger.withLock { $0.entries.append(entry) }
        return (status, bytes, retryAfter)
    }

    /// Runs every family's three loops until `stop()`; a held poll ends within its 20 s.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            for family in families {
                group.addTask { await self.writes(family) }
                group.addTask { await self.uploads(family) }
                group.addTask { await self.polls(family) }
            }
        }
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    private var running: Bool { !stopped.load(ordering: .relaxed) }

    /// After a refusal: its Retry-After, else a second, so a failing family does not spin.
    private func pause(after retryAfter: Int?) async {
        try? await Task.sleep(for: .seconds(retryAfter ?? 1))
    }

    private func jittered(_ interval: Double) -> Duration { .seconds(interval * Double.random(in: 0.5...1.5)) }

    private func writes(_ family: Family) async {
        var number = 0
        while running {
            try? await Task.sleep(for: jittered(writeInterval))
            number += 1
            let name = "w-\(number)"
            let operation = RecordOperation(
                operationType: .create,
                record: RecordInput(recordName: name, recordType: "AppConfiguration", fields: [
                    "logicalID": .string("app-\(number)"), "displayName": .string("App \(number)"), "category": .string("learning"),
                    "pointsPerMinute": .number(1), "isEnabled": .bool(true), "blockingEnabled": .bool(false),
                ])
            )
            let sent = ContinuousClock.now
            ledger.withLock { $0.pending[family.index, default: []].append(sent) }
            let body = try! WireCoding.makeEncoder().encode(ModifyRecordsRequest(operations: [operation]))
            let (status, bytes, retryAfter) = await exchange(
                .POST, "/v1/zones/\(family.zone)/records/modify", api: family.parentAPI, credential: family.parent, body: body, family: family.index, kind: .write
            )
            if status == 200, let bytes, let answer = try? WireCoding.makeDecoder().decode(ModifyRecordsResponse.self, from: Data(bytes.readableBytesView)),
                let tag = answer.records.first?.record?.recordChangeTag
            {
                ledger.withLock { $0.acknowledged.append((family.index, name, tag)) }
            } else {
                // Not acknowledged: no wake is owed for it.
                ledger.withLock { $0.pending[family.index]?.removeAll { $0 == sent } }
                await pause(after: retryAfter)
            }
        }
    }

    private func uploads(_ family: Family) async {
        while running {
            try? await Task.sleep(for: jittered(usageInterval))
            let sessionEnd = Date().addingTimeInterval(-60)
            let record = UsageRecordBody(
                recordID: UUID().uuidString.lowercased(), logicalID: "app-usage", displayName: "Usage", category: "learning",
                sessionStart: sessionEnd.addingTimeInterval(-120), sessionEnd: sessionEnd, totalSeconds: 120
            )
            let body = try! WireCoding.makeEncoder().encode(UsageUploadRequest(timeZone: "UTC", records: [record]))
            let (status, _, retryAfter) = await exchange(.POST, "/v1/usage", api: family.childAPI, credential: family.child, body: body, family: family.index, kind: .usage)
            if status != 200 { await pause(after: retryAfter) }
        }
    }

    /// The child's poll, held again at once after each answer. A wake's latency runs from the
    /// oldest write it had not seen, or from when the poll was held if that write came first.
    private func polls(_ family: Family) async {
        var token: String?
        while running {
            let held = ContinuousClock.now
            let (status, bytes, retryAfter) = await exchange(
                .GET, token.map { "/v1/poll?timeout=20&since=\($0)" } ?? "/v1/poll?timeout=0", api: family.childAPI, credential: family.child,
                family: family.index, kind: .poll, deadline: 35
            )
            guard status == 200, let bytes, let answer = try? WireCoding.makeDecoder().decode(PollResponse.self, from: Data(bytes.readableBytesView)) else {
                await pause(after: retryAfter)
                continue
            }
            let answered = ContinuousClock.now
            if answer.changed, token != nil {
                let oldest = ledger.withLock { ledger -> ContinuousClock.Instant? in
                    defer { ledger.pending[family.index] = [] }
                    return ledger.pending[family.index]?.min()
                }
                if let oldest {
                    let wake = Wake(at: offset(answered), family: family.index, seconds: seconds(answered - max(oldest, held)))
                    ledger.withLock { $0.wakes.append(wake) }
                }
            }
            token = answer.changeToken
        }
    }

    /// The log, one request a line: sent (s), family, kind, status, Retry-After, database_unavailable, seconds.
    func write(log path: String) throws {
        let lines = snapshot.entries.sorted { $0.sent < $1.sent }.map {
            String(format: "%.3f\t%d\t%@\t%d\t%@\t%@\t%.4f", $0.sent, $0.family, $0.kind.rawValue, $0.status, $0.retryAfter ? "retry-after" : "-",
                   $0.databaseUnavailable ? "database_unavailable" : "-", $0.seconds)
        }
        try (["sent\tfamily\tkind\tstatus\tretry_after\treason\tseconds"] + lines).joined(separator: "\n").appending("\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}
