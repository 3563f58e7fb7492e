import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// A family's data rights (PROTOCOL §15): its retention, and its audit log. Parents only.
extension FamilySyncClient {
    /// §15.1: every kind's days as applied, the operator's maximum, the kinds the family set.
    public func retention() async throws(FamilySyncError) -> RetentionBody {
        try await send(.GET, "/v1/families/me/retention", as: RetentionBody.self)
    }

    /// §15.1: keeps each kind given that many days; the kinds left out are kept the maximum.
    public func setRetention(_ days: [RetentionKind: Int]) async throws(FamilySyncError) -> RetentionBody {
        let request = SetRetentionRequest(days: Dictionary(uniqueKeysWithValues: days.map { ($0.key.rawValue, $0.value) }))
        return try await send(.PUT, "/v1/families/me/retention", body: request, as: RetentionBody.self)
    }

    /// §15.4: a page of the audit log, newest first; `cursor` from the previous page; with
    /// `member`, only what concerns that member.
    public func auditEvents(member: UUID? = nil, cursor: String? = nil, limit: Int? = nil) async throws(FamilySyncError) -> AuditPage {
        try await send(.GET, "/v1/audit", query: [("member", member?.lowercased), ("cursor", cursor), ("limit", limit.map(String.init))], as: AuditPage.self)
    }

    /// §15.4: parents' reads of the days `from`…`to` (UTC), counted per day, member and route.
    public func auditReads(from: String, to: String) async throws(FamilySyncError) -> [AuditReadsBody] {
        try await send(.GET, "/v1/audit/reads", query: [("from", from), ("to", to)], as: AuditReadsList.self).days
    }

    /// §15.2: everything the server holds about the family, written to `file` as the server's tar
    /// archive (`manifest.json`, JSON Lines per kind, `counts.json`). Returns the archive's counts
    /// read back from the file's end, so a cut archive is an error here.
    public func exportFamily(to file: URL) async throws(FamilySyncError) -> ExportCounts {
        try await download(.GET, "/v1/families/me/export", to: file)
    }

    /// §15.2: everything the server holds about one member, as `exportFamily`.
    public func exportMember(_ id: UUID, to file: URL) async throws(FamilySyncError) -> ExportCounts {
        try await download(.GET, "/v1/members/\(id.lowercased)/export", to: file)
    }

    /// An export's whole length: longer than any family's.
    static let exportTimeout: Duration = .seconds(3600)

    private func download(_ method: RequestMethod, _ path: String, to file: URL) async throws(FamilySyncError) -> ExportCounts {
        let request = try makeRequest(method, path, body: Optional<NoBody>.none, accept: "application/x-tar", timeout: Self.exportTimeout)
        _ = try await answer(request, method: method, path: path, replayable: true) { request throws(TransportFailure) in
            try await transport.download(request, to: file)
        }
        return try Self.counts(of: file)
    }

    /// `counts.json`, the archive's last entry: its ustar header is followed by the JSON, then the
    /// padding and the two empty blocks of the end. Reads only the file's last few kilobytes.
    static func counts(of file: URL) throws(FamilySyncError) -> ExportCounts {
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            let size = try handle.seekToEnd()
            let tail = min(size, 64 * 1024)
            try handle.seek(toOffset: size - tail)
            let bytes = [UInt8](try handle.readToEnd() ?? Data())
            // The last header whose name is counts.json.
            let name = Array("counts.json".utf8)
            var offset = bytes.count - 512
            while offset >= 0 {
                if bytes[offset..<offset + name.count].elementsEqual(name), bytes[offset + name.count] == 0 {
                    let sizeField = String(decoding: bytes[offset + 124..<offset + 135], as: UTF8.self)
                    guard let length = Int(sizeField, radix: 8), offset + 512 + length <= bytes.count else { break }
                    return try WireCoding.makeDecoder().decode(ExportCounts.self, from: Data(bytes[offset + 512..<offset + 512 + length]))
                }
                offset -= 512
            }
        } catch let error as FamilySyncError {
            throw error
        } catch {
            throw FamilySyncError(.internalError, "The export at \(file.path) could not be read: \(error)")
        }
        throw FamilySyncError(.internalError, "The export at \(file.path) was cut short: it has no counts.json.")
    }
}
