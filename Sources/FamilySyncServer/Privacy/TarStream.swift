import AsyncAlgorithms
import FamilySyncCore
import Foundation
import NIOCore

/// An export's archive (PROTOCOL §15.2) as a POSIX tar (ustar) stream: each kind's JSON Lines in
/// parts of at most `partBytes`, so that no more than a part a kind is held however large the
/// family; the manifest first and `counts.json` last. A tar entry's header names its size, so a
/// part is written once it is full or its kind has ended. Sent through `channel`, which waits for
/// the response to take each buffer (back pressure from the client's reading).
actor TarStream {
    static let block = 512
    /// Small enough to hold one of every kind at once (a dozen kinds), large enough that a family's
    /// usage is a few hundred entries, not millions.
    static let partBytes = 1 << 20

    private let channel: AsyncChannel<ByteBuffer>
    private let modified: Date
    /// Set when the export's time is up: the next send ends it.
    private let expiry: ExportExpiry
    private var parts: [String: (bytes: [UInt8], number: Int)] = [:]
    private var order: [String] = []
    private(set) var lines: [String: Int] = [:]

    init(channel: AsyncChannel<ByteBuffer>, modified: Date, expiry: ExportExpiry) {
        self.channel = channel
        self.modified = modified
        self.expiry = expiry
    }

    /// Lines of `kind`, each written with its newline; a part that fills is sent.
    func add(_ kind: String, _ new: [String]) async throws {
        if parts[kind] == nil {
            parts[kind] = ([], 0)
            order.append(kind)
        }
        lines[kind, default: 0] += new.count
        for line in new {
            parts[kind]!.bytes.append(contentsOf: line.utf8)
            parts[kind]!.bytes.append(0x0A)
            if parts[kind]!.bytes.count >= Self.partBytes { try await flush(kind) }
        }
    }

    /// A whole file at the archive's root.
    func file(_ name: String, _ bytes: [UInt8]) async throws {
        try await entry(name, bytes)
    }

    /// The parts left, in the order their kinds came, then `counts.json` and the end of the archive.
    func finish(counts: [UInt8]) async throws {
        for kind in order where !(parts[kind]?.bytes.isEmpty ?? true) { try await flush(kind) }
        try await entry("counts.json", counts)
        try await send(ByteBuffer(repeating: 0, count: 2 * Self.block))
    }

    private func flush(_ kind: String) async throws {
        guard var part = parts[kind] else { return }
        part.number += 1
        try await entry("\(kind)/part-\(String(format: "%05d", part.number)).jsonl", part.bytes)
        part.bytes.removeAll(keepingCapacity: true)
        parts[kind] = part
    }

    private func entry(_ name: String, _ bytes: [UInt8]) async throws {
        // The names are the export's own (kinds of the registry, part numbers): never a client's.
        guard name.utf8.count <= 100 else { throw FamilySyncError(.internalError, "An export entry's name is longer than ustar allows.") }
        var buffer = ByteBuffer(bytes: Self.header(name: name, size: bytes.count, modified: modified))
        buffer.writeBytes(bytes)
        buffer.writeRepeatingByte(0, count: (Self.block - bytes.count % Self.block) % Self.block)
        try await send(buffer)
    }

    private func send(_ buffer: ByteBuffer) async throws {
        try Task.checkCancellation()
        if expiry.isExpired { throw ExportExpired() }
        await channel.send(buffer)
        if expiry.isExpired { throw ExportExpired() }
    }

    /// A ustar header: the name (at most 100 bytes, checked by `entry`), mode 0644, the
    /// size and time in octal, the checksum over the header with its own field as spaces.
    static func header(name: String, size: Int, modified: Date) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: block)
        func put(_ text: String, at offset: Int, width: Int) {
            for (index, byte) in text.utf8.prefix(width).enumerated() { header[offset + index] = byte }
        }
        func octal(_ value: Int, width: Int) -> String {
            let digits = String(value, radix: 8)
            return String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits
        }
        put(name, at: 0, width: 100)
        put("0000644", at: 100, width: 8)
        put("0000000", at: 108, width: 8)
        put("0000000", at: 116, width: 8)
        put(octal(size, width: 12), at: 124, width: 12)
        put(octal(Int(modified.timeIntervalSince1970), width: 12), at: 136, width: 12)
        put("        ", at: 148, width: 8)
        header[156] = UInt8(ascii: "0")
        put("ustar", at: 257, width: 6)
        put("00", at: 263, width: 2)
        put("familysync", at: 265, width: 32)
        put("familysync", at: 297, width: 32)
        let checksum = header.reduce(0) { $0 + Int($1) }
        put(octal(checksum, width: 7), at: 148, width: 7)
        return header
    }
}
