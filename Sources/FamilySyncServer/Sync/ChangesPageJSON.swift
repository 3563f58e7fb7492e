import FamilySyncCore
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
    static func capacity(of pages: [ZoneChangePage<FeedRecord<ByteBuffer>>]) -> Int {
        pages.reduce(256) { total, page in total + page.records.reduce(128) { $0 + $1.fieldsJSON.readableBytes + 320 } }
    }

    /// `{"changeToken":…,"moreComing":…,"records":[…]}`, or with `"zoneName"` after them for an
    /// entry of a multi-zone answer; in the compact format `"devices"` comes after the token.
    mutating func writePage(_ changes: ZoneChangePage<FeedRecord<ByteBuffer>>, changeToken: String, zoneName: String? = nil, format: ChangesFormat = .full) {
        buffer.writeStaticString(#"{"changeToken":"#)
        writeString(changeToken)
        var devices: [UUID: Int] = [:]
        if format == .compact {
            buffer.writeStaticString(#","devices":["#)
            for record in changes.records where !record.deleted {
                writeDevice(record.createdBy, into: &devices)
                writeDevice(record.modifiedBy, into: &devices)
            }
            buffer.writeStaticString("]")
        }
        buffer.writeStaticString(changes.moreComing ? #","moreComing":true,"records":["# : #","moreComing":false,"records":["#)
        for (index, record) in changes.records.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            if format == .compact { writeCompactRecord(record, devices: devices) } else { writeRecord(record) }
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
    private mutating func writeRecord(_ record: FeedRecord<ByteBuffer>) {
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
        buffer.writeStaticString(#""},"#)
        writeTagAndNames(record)
    }

    /// `"recordChangeTag":…,"recordName":…,"recordType":…}`: how both formats end a live record.
    private mutating func writeTagAndNames(_ record: FeedRecord<ByteBuffer>) {
        buffer.writeStaticString(#""recordChangeTag":"#)
        writeString(record.changeTag)
        buffer.writeStaticString(#","recordName":"#)
        writeString(record.recordName)
        buffer.writeStaticString(#","recordType":"#)
        writeString(record.recordType)
        buffer.writeStaticString("}")
    }

    /// A device of a compact page's `devices`, the first time the page names it.
    private mutating func writeDevice(_ device: UUID, into devices: inout [UUID: Int]) {
        guard devices[device] == nil else { return }
        if !devices.isEmpty { buffer.writeStaticString(",") }
        devices[device] = devices.count
        buffer.writeStaticString("\"")
        buffer.writeString(device.lowercased)
        buffer.writeStaticString("\"")
    }

    /// A record of a compact page (PROTOCOL §5.5): `created` left out when the creation was the
    /// last change, `clientModifiedAt` when it is `modified`'s instant, `deleted` when false.
    private mutating func writeCompactRecord(_ record: FeedRecord<ByteBuffer>, devices: [UUID: Int]) {
        if record.deleted {
            writeRecord(record)
            return
        }
        buffer.writeStaticString("{")
        let modified = Instant.milliseconds(record.modifiedAt)
        let clientModified = Instant.milliseconds(record.clientModifiedAt)
        if clientModified != modified {
            buffer.writeStaticString(#""clientModifiedAt":"#)
            buffer.writeString(String(clientModified))
            buffer.writeStaticString(",")
        }
        let created = Instant.milliseconds(record.createdAt)
        if created != modified || record.createdBy != record.modifiedBy {
            buffer.writeStaticString(#""created":["#)
            buffer.writeString(String(created))
            buffer.writeStaticString(",")
            buffer.writeString(String(devices[record.createdBy]!))
            buffer.writeStaticString("],")
        }
        buffer.writeStaticString(#""fields":"#)
        buffer.writeImmutableBuffer(record.fieldsJSON)
        buffer.writeStaticString(#","modified":["#)
        buffer.writeString(String(modified))
        buffer.writeStaticString(",")
        buffer.writeString(String(devices[record.modifiedBy]!))
        buffer.writeStaticString(#",""#)
        buffer.writeString(record.modifiedRole.rawValue)
        buffer.writeStaticString(#""],"#)
        writeTagAndNames(record)
    }

    private mutating func writeString(_ text: String) {
        WireJSONWriter.writeQuoted(text, into: &buffer)
    }

    /// The body as a 200 answer.
    func response() -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: buffer))
    }
}
