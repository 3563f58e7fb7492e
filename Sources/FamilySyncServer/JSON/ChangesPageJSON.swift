import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird
import NIOCore

/// The JSON of pages of changes (`GET /v1/zones/{zone}/changes`, `POST /v1/changes/zones`), written
/// straight into the response's buffer. Each record's fields go out as the text PostgreSQL printed
/// for them, never parsed: a full sync sends thousands of records the server only passes on.
///
/// The body is what `ZoneChangesResponse` and `MultiZoneChangesResponse` encode to (keys sorted,
/// instants as `Instant.format`), except inside `fields`, whose keys come in jsonb's order and
/// whose separators carry a space. `ChangesPageJSONTests` holds the two to the same values.
struct ChangesPageJSON {
    private(set) var buffer: ByteBuffer

    init(capacity: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    /// A room estimate for a page: the records' fields plus their envelopes.
    static func capacity(of pages: [PostgresRecordReads.ZoneChanges]) -> Int {
        pages.reduce(256) { total, page in total + page.records.reduce(128) { $0 + $1.fieldsJSON.readableBytes + 320 } }
    }

    /// `{"changeToken":…,"moreComing":…,"records":[…]}`, or with `"zoneName"` after them for an
    /// entry of a multi-zone answer.
    mutating func writePage(_ changes: PostgresRecordReads.ZoneChanges, changeToken: String, zoneName: String? = nil) {
        buffer.writeStaticString(#"{"changeToken":"#)
        writeString(changeToken)
        buffer.writeStaticString(changes.moreComing ? #","moreComing":true,"records":["# : #","moreComing":false,"records":["#)
        for (index, record) in changes.records.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            writeRecord(record)
        }
        buffer.writeStaticString("]")
        if let zoneName {
            buffer.writeStaticString(#","zoneName":"#)
            writeString(zoneName)
        }
        buffer.writeStaticString("}")
    }

    /// A multi-zone answer's entry for a zone that failed alone: `{"error":{…},"zoneName":…}`.
    mutating func writeFailure(_ error: FamilySyncError, zoneName: String) throws {
        buffer.writeStaticString(#"{"error":"#)
        buffer.writeBytes(try JSONEncoder.wire.encode(ErrorResponse(error).error))
        buffer.writeStaticString(#","zoneName":"#)
        writeString(zoneName)
        buffer.writeStaticString("}")
    }

    mutating func writeStatic(_ text: StaticString) {
        buffer.writeStaticString(text)
    }

    /// A record as `RecordBody` encodes it: a deletion as `{deleted, recordName, recordType}`.
    private mutating func writeRecord(_ record: FeedRecord) {
        if record.deleted {
            buffer.writeStaticString(#"{"deleted":true,"recordName":"#)
            writeString(record.recordName)
            buffer.writeStaticString(#","recordType":"#)
            writeString(record.recordType)
            buffer.writeStaticString("}")
            return
        }
        buffer.writeStaticString(#"{"clientModifiedAt":""#)
        buffer.writeString(Instant.format(record.clientModifiedAt))
        buffer.writeStaticString(#"","created":{"deviceId":""#)
        buffer.writeString(record.createdBy.lowercased)
        buffer.writeStaticString(#"","timestamp":""#)
        buffer.writeString(Instant.format(record.createdAt))
        buffer.writeStaticString(#""},"deleted":false,"fields":"#)
        buffer.writeImmutableBuffer(record.fieldsJSON)
        buffer.writeStaticString(#","modified":{"deviceId":""#)
        buffer.writeString(record.modifiedBy.lowercased)
        buffer.writeStaticString(#"","role":""#)
        buffer.writeString(record.modifiedRole.rawValue)
        buffer.writeStaticString(#"","timestamp":""#)
        buffer.writeString(Instant.format(record.modifiedAt))
        buffer.writeStaticString(#""},"recordChangeTag":"#)
        writeString(record.changeTag)
        buffer.writeStaticString(#","recordName":"#)
        writeString(record.recordName)
        buffer.writeStaticString(#","recordType":"#)
        writeString(record.recordType)
        buffer.writeStaticString("}")
    }

    private mutating func writeString(_ text: String) {
        WireJSONWriter.writeQuoted(text, into: &buffer)
    }

    /// The body as a 200 answer.
    func response() -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: buffer))
    }
}
