import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation
import Synchronization

/// A child's device in the soak: its engine, its usage queue (a file, as the app keeps it), and
/// what it sent and what the server acknowledged.
final class SoakChild: Sendable {
    struct Ledger {
        /// Every record ever queued, by id.
        var queued: [String: UsageRecordBody] = [:]
        /// Batches the server acknowledged (a flush that returned), for re-sending.
        var acknowledged: [[UsageRecordBody]] = []
        /// A re-sent acknowledged batch that was not all duplicates.
        var resentNotDuplicate: [String] = []
        var flushFailures: [String: Int] = [:]
        var rejected = 0
        var offlineGaps = 0
        var commandsExecuted = 0
        var failures: [String: Int] = [:]
    }

    let id: UUID
    let timeZone: String
    let client: FamilySyncClient
    let engine: FollowingEngine
    let queue: UsageUploadQueue
    let ledger = Mutex(Ledger())
    static let apps = (0..<6).map { ("app-\($0)", "App \($0)", $0 % 3 == 2 ? "reward" : "learning") }

    init(id: UUID, timeZone: String, client: FamilySyncClient, directory: String) {
        self.id = id
        self.timeZone = timeZone
        self.client = client
        engine = FollowingEngine(client: client, stateFile: directory + "/engine-\(id).json", reference: id.uuidString)
        queue = UsageUploadQueue(store: FileSyncStateStore(url: URL(fileURLWithPath: directory + "/queue-\(id).json")))
    }

    /// What a child's app does until `end`: every few seconds a few sessions queued and flushed,
    /// now and then offline for a while (the queue grows), now and then an acknowledged batch
    /// sent again; its commands carried out.
    func run(until end: ContinuousClock.Instant) async {
        var offlineUntil: ContinuousClock.Instant?
        var iteration = 0
        while ContinuousClock.now < end {
            iteration += 1
            try? await Task.sleep(for: .milliseconds(Int.random(in: 3000...8000)))
            let now = Date()
            let records = (0..<Int.random(in: 1...4)).map { _ in
                let app = Self.apps.randomElement()!
                let length = Double(Int.random(in: 10...300))
                let start = now.addingTimeInterval(-length - Double(Int.random(in: 0...600)))
                return UsageRecordBody(
                    recordID: UUID().uuidString, logicalID: app.0, displayName: app.1, category: app.2,
                    sessionStart: start, sessionEnd: start.addingTimeInterval(length), totalSeconds: Int(length) - Int.random(in: 0...5),
                    earnedPoints: Int.random(in: 0...20)
                )
            }
            do {
                try await queue.enqueue(records)
            } catch {
                ledger.withLock { $0.failures["enqueue", default: 0] += 1 }
                continue
            }
            ledger.withLock { ledger in for record in records { ledger.queued[record.recordID] = record } }
            if let until = offlineUntil, ContinuousClock.now < until { continue }
            offlineUntil = nil
            if Int.random(in: 0..<50) == 0 {
                offlineUntil = ContinuousClock.now + .seconds(Int.random(in: 30...120))
                ledger.withLock { $0.offlineGaps += 1 }
                continue
            }
            await flush()
            if Int.random(in: 0..<20) == 0, let batch = ledger.withLock({ $0.acknowledged.randomElement() }) {
                do {
                    let answer = try await client.uploadUsage(UsageUploadRequest(timeZone: timeZone, records: batch))
                    if answer.duplicates != batch.count { ledger.withLock { $0.resentNotDuplicate.append(batch[0].recordID) } }
                } catch {
                    ledger.withLock { $0.failures["re-send \(error.code.rawValue)", default: 0] += 1 }
                }
            }
            if iteration % 2 == 0 { await carryOutCommands() }
        }
    }

    /// Sends what is queued; true once the queue is empty.
    @discardableResult
    func flush() async -> Bool {
        do {
            let pending = try await queue.pending()
            let delivery = try await queue.flush(with: client, timeZone: timeZone)
            ledger.withLock { ledger in
                if !pending.isEmpty { ledger.acknowledged.append(Array(pending.prefix(UsageSession.maximumPerUpload))) }
                ledger.rejected += delivery.rejected.count
            }
            return true
        } catch {
            let code = (error as? FamilySyncError)?.code.rawValue ?? "\(error)"
            ledger.withLock { $0.flushFailures[code, default: 0] += 1 }
            return false
        }
    }

    func carryOutCommands() async {
        do {
            for command in try await client.commands(of: id, status: .open) {
                _ = try await client.reportResult(of: UUID(uuidString: command.commandId)!, executed: true)
                ledger.withLock { $0.commandsExecuted += 1 }
            }
        } catch {
            ledger.withLock { $0.failures["commands \(error.code.rawValue)", default: 0] += 1 }
        }
    }
}

/// A parent's device in the soak: its engine, configuration written into its children's zones,
/// commands sent, summaries read.
final class SoakParent: Sendable {
    let client: FamilySyncClient
    let engine: FollowingEngine
    let children: [SoakChild]
    let failures = Mutex<[String: Int]>([:])
    let writes = Atomic<Int>(0)
    let commands = Atomic<Int>(0)

    init(client: FamilySyncClient, children: [SoakChild], directory: String, reference: String) {
        self.client = client
        self.children = children
        engine = FollowingEngine(client: client, stateFile: directory + "/engine-\(reference).json", reference: reference)
    }

    func run(until end: ContinuousClock.Instant) async {
        var iteration = 0
        while ContinuousClock.now < end {
            iteration += 1
            try? await Task.sleep(for: .milliseconds(Int.random(in: 5000...15000)))
            let child = children.randomElement()!
            let app = SoakChild.apps.randomElement()!
            let fields: [String: JSONValue] = [
                "logicalID": .string(app.0), "displayName": .string(app.1), "category": .string(app.2),
                "isEnabled": .bool(true), "blockingEnabled": .bool(Bool.random()), "pointsPerMinute": .number(Double(Int.random(in: 0...10))),
            ]
            do {
                let operation = RecordOperation(operationType: .forceReplace, record: .init(recordName: app.0, recordType: "AppConfiguration", fields: fields))
                _ = try await client.modify(Device.zoneName(forChild: child.id), ModifyRecordsRequest(operations: [operation]))
                writes.add(1, ordering: .relaxed)
                if iteration % 3 == 0 {
                    _ = try await client.sendCommand(to: child.id, CreateCommandRequest(commandType: "block", payload: ["apps": .array([.string(app.0)])]))
                    commands.add(1, ordering: .relaxed)
                }
                if iteration % 4 == 0 {
                    let today = DailySummaryCalculator.day(of: Date(), in: TimeZone(identifier: child.timeZone)!)
                    _ = try await client.summaries(of: child.id, from: today, to: today)
                }
            } catch {
                failures.withLock { $0[error.code.rawValue, default: 0] += 1 }
            }
        }
    }
}
