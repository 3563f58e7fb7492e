import AsyncAlgorithms
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// An export's archive as the response's body (PROTOCOL §15.2): the store's reads written as a
/// tar while the client reads it, through a channel, and cut at `deadline`. The controller has
/// checked, audited and taken the slot before; what fails once streaming has begun ends the
/// connection before the archive's end (no `counts.json`).
struct ExportArchive {
    let export: PostgresExport
    let deadline: Duration

    func body(_ manifest: ExportManifest, slot: ExportSlots.Slot, logger: Logger) -> ResponseBody {
        let export = export, deadline = deadline
        return ResponseBody { writer in
            let channel = AsyncChannel<ByteBuffer>()
            let expiry = ExportExpiry()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // The database's part ends here: its connection, its snapshot and the slot go
                    // back even while a slow client still reads the last buffers.
                    defer {
                        slot.release()
                        channel.finish()
                    }
                    let tar = TarStream(channel: channel, modified: manifest.exportedAt, expiry: expiry)
                    let encoder = WireCoding.makeEncoder()
                    try await tar.file("manifest.json", Array(try encoder.encode(manifest)))
                    try await export.read(familyID: manifest.familyId, member: manifest.memberId) { kind, lines in try await tar.add(kind, lines) }
                    try await tar.finish(counts: Array(try encoder.encode(ExportCounts(lines: await tar.lines, complete: true))))
                }
                // An export that has not been read whole by then is cut: a client reading slowly
                // would otherwise hold a connection and a snapshot (which holds back vacuum) for
                // as long as it liked.
                group.addTask {
                    try? await Task.sleep(for: deadline)
                    guard !Task.isCancelled else { return }
                    expiry.expire()
                    channel.finish()
                }
                for await buffer in channel { try await writer.write(buffer) }
                group.cancelAll()
                do {
                    try await group.waitForAll()
                } catch {
                    logger.warning("An export was cut short", metadata: ["error": "\(DatabaseErrorTranslation.describeForOperator(error))"])
                    throw error
                }
            }
            try await writer.finish(nil)
        }
    }
}
