import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncTestSupport
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ReliabilitySuites {
    /// `kill -9` of the server while a child's uploads arrive, round after round, restarting on the
    /// same data directory (the embedded database keeps running and is taken over, or restarted).
    @Suite(.timeLimit(.minutes(3))) struct ServerKillTests {
        static let rounds = 8

        /// What one uploader sent: each batch, and whether the server acknowledged it.
        final class Ledger: Sendable {
            let batches = Mutex<[(records: [UsageRecordBody], acknowledged: Bool)]>([])
            let unanswered = Atomic<Int>(0)
            let slot = Atomic<Int>(0)

            var acknowledgedCount: Int { batches.withLock { $0.count { $0.acknowledged } } }
        }

        @Test func noBatchIsSplitOrLostAndRetriesStoreEachRecordOnce() async throws {
            try await withTemporaryDirectory { directory in
                let port = try freePort()
                let arguments = ["serve", "--port", "\(port)", "--data-dir", directory + "/data"]
                var server = try await ServerProcess.start(arguments, port: port, workingDirectory: directory)
                defer { server.signal(SIGKILL) }
                try await server.waitUntilReady()
                let family = try await PairedFamily.create(on: server.client)
                let child = family.children[0]
                let ledger = Ledger()
                let base = Date().addingTimeInterval(-2 * 86_400)

                for _ in 0..<Self.rounds {
                    let uploaders = (0..<4).map { _ in
                        Task {
                            while !Task.isCancelled {
                                let records = (0..<10).map { _ in
                                    UsageRecordBody.second(ledger.slot.add(1, ordering: .relaxed).oldValue, after: base, app: Int.random(in: 0..<4))
                                }
                                let index = ledger.batches.withLock { $0.append((records, false)); return $0.count - 1 }
                                do throws(FamilySyncError) {
                                    _ = try await child.client.uploadUsage(UsageUploadRequest(timeZone: "UTC", records: records))
                                    ledger.batches.withLock { $0[index].acknowledged = true }
                                } catch {
                                    if error.isUnanswered { ledger.unanswered.add(1, ordering: .relaxed) }
                                    // A shed upload did nothing (PROTOCOL §1.2): its batch stays unacknowledged, as a
                                    // cut one does, and the loop sends on as a client would.
                                    let shed = TryAgainReason(error).map { $0 != .databaseUnavailable } ?? false
                                    #expect(error.isUnanswered || shed, "an upload failed with an answer: \(error)")
                                    try? await Task.sleep(for: .milliseconds(20))
                                }
                            }
                        }
                    }
                    // Once this round has stored something, anywhere in the uploads that follow: the
                    // kill lands at a different point each round.
                    let before = ledger.acknowledgedCount
                    while ledger.acknowledgedCount == before { try await Task.sleep(for: .milliseconds(5)) }
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0...400)))
                    server.signal(SIGKILL)
                    _ = try await server.waitForExit()
                    for uploader in uploaders { uploader.cancel() }
                    for uploader in uploaders { await uploader.value }
                    server = try await ServerProcess.start(arguments, port: port, workingDirectory: directory)
                    try await server.waitUntilReady()
                }
                #expect(ledger.unanswered.load(ordering: .relaxed) > 0, "no upload was cut off by a kill")

                // Every batch again: an acknowledged one is all duplicates, any other all or nothing.
                let batches = ledger.batches.withLock { $0 }
                var split = 0, lost = 0
                for batch in batches {
                    let answer = try await child.client.uploadUsage(UsageUploadRequest(timeZone: "UTC", records: batch.records))
                    if batch.acknowledged, answer.duplicates != batch.records.count { lost += 1 }
                    if answer.accepted != 0, answer.duplicates != 0 { split += 1 }
                }
                #expect(lost == 0, "acknowledged batches not stored whole: \(lost)")
                #expect(split == 0, "batches stored in part: \(split)")

                // Each record once: every stored second counts once in the day totals.
                let days = (0...3).map { DailySummaryCalculator.day(of: base.addingTimeInterval(Double($0) * 86_400), in: .gmt) }
                let summaries = try await family.parent.summaries(of: child.id, from: days.first!, to: days.last!)
                let records = batches.reduce(0) { $0 + $1.records.count }
                #expect(summaries.reduce(0) { $0 + $1.totalSeconds } == records)
                server.signal(SIGTERM)
                #expect(try await server.waitForExit() == .exited(0))
            }
        }
    }
}
