import Crypto
import FamilySyncCore
import FamilySyncProtocol
import Foundation
import SwiftCSV

/// Usage records from a file: JSON (PROTOCOL §7.2's upload body, or just its `records` array) or
/// CSV with a header row naming §7.2's members. A record without a `recordID` gets one derived
/// from the device, the app and the session's instants, so that uploading the same file again is
/// counted as duplicates, not as new usage.
enum UsageFile {
    struct Contents: Equatable {
        var timeZone: String?
        var records: [UsageRecordBody]
    }

    static let csvColumns = ["recordID", "logicalID", "displayName", "bundleIdentifier", "category", "sessionStart", "sessionEnd", "totalSeconds", "earnedPoints", "pickups"]
    /// Without `category` (or with it empty) the server categorises the record (§9.1).
    static let requiredCSVColumns: Set = ["logicalID", "displayName", "sessionStart", "sessionEnd"]

    static func read(_ path: String, deviceID: UUID) throws -> Contents {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw OperatorError.configuration("cannot read the usage file \(path)")
        }
        let first = data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        if path.lowercased().hasSuffix(".json") || first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            return try json(data, deviceID: deviceID)
        }
        return try csv(String(decoding: data, as: UTF8.self), deviceID: deviceID)
    }

    static func json(_ data: Data, deviceID: UUID) throws -> Contents {
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw OperatorError.configuration("the usage file is not valid JSON")
        }
        var timeZone: String?
        let list: [JSONValue]
        switch document {
        case .array(let records):
            list = records
        case .object(let body):
            guard case .array(let records)? = body["records"] else { throw OperatorError.configuration("the usage file's object has no 'records' array") }
            if case .string(let zone)? = body["timeZone"] { timeZone = zone }
            if let extra = body.keys.first(where: { !["records", "timeZone"].contains($0) }) {
                throw OperatorError.configuration("the usage file has an unknown member '\(extra)'")
            }
            list = records
        default:
            throw OperatorError.configuration("the usage file must be an object with 'records', or an array of records")
        }
        let records = try list.enumerated().map { index, value in
            guard var fields = value.objectValue else { throw OperatorError.configuration("records[\(index)] is not an object") }
            if let unknown = fields.keys.sorted().first(where: { !csvColumns.contains($0) }) {
                throw OperatorError.configuration("records[\(index)] has an unknown member '\(unknown)'")
            }
            if fields["recordID"] == nil {
                guard case .string(let app)? = fields["logicalID"], case .string(let start)? = fields["sessionStart"], case .string(let end)? = fields["sessionEnd"] else {
                    throw OperatorError.configuration("records[\(index)] needs logicalID, sessionStart and sessionEnd")
                }
                fields["recordID"] = .string(try derivedID(deviceID: deviceID, logicalID: app, start: start, end: end, at: "records[\(index)]").lowercased)
            }
            do {
                return try WireCoding.makeDecoder().decode(UsageRecordBody.self, from: WireCoding.makeEncoder().encode(JSONValue.object(fields)))
            } catch {
                throw OperatorError.configuration("records[\(index)] is not a usage record: \(Self.describe(error))")
            }
        }
        return Contents(timeZone: timeZone, records: records)
    }

    static func csv(_ text: String, deviceID: UUID) throws -> Contents {
        let table: CSV<Named>
        do {
            table = try CSV<Named>(string: text, delimiter: .comma)
        } catch {
            throw OperatorError.configuration("the usage file is not valid CSV: \(error)")
        }
        let header = table.header.map { $0.trimmingCharacters(in: .whitespaces) }
        if let unknown = header.first(where: { !csvColumns.contains($0) }) {
            throw OperatorError.configuration("the usage file's column '\(unknown)' is not one of \(csvColumns.joined(separator: ", "))")
        }
        if let missing = requiredCSVColumns.subtracting(header).sorted().first {
            throw OperatorError.configuration("the usage file has no '\(missing)' column")
        }
        let records = try table.rows.enumerated().map { index, row in
            // Row 1 is the header.
            let at = "row \(index + 2)"
            func value(_ column: String) -> String? {
                row[column].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
            }
            func required(_ column: String) throws -> String {
                guard let text = value(column) else { throw OperatorError.configuration("\(at): \(column) is empty") }
                return text
            }
            func instant(_ column: String) throws -> Date {
                guard let date = Instant.parse(try required(column)) else { throw OperatorError.configuration("\(at): \(column) is not an RFC 3339 instant") }
                return date
            }
            func integer(_ column: String) throws -> Int? {
                guard let text = value(column) else { return nil }
                guard let number = Int(text) else { throw OperatorError.configuration("\(at): \(column) is not a whole number") }
                return number
            }
            let app = try required("logicalID")
            let start = try instant("sessionStart")
            let end = try instant("sessionEnd")
            let id = try value("recordID") ?? derivedID(deviceID: deviceID, logicalID: app, start: Instant.format(start), end: Instant.format(end), at: at).lowercased
            return UsageRecordBody(
                recordID: id, logicalID: app, displayName: try required("displayName"), bundleIdentifier: value("bundleIdentifier"),
                category: value("category"), sessionStart: start, sessionEnd: end,
                totalSeconds: try integer("totalSeconds") ?? max(0, Int(end.timeIntervalSince(start).rounded(.down))),
                earnedPoints: try integer("earnedPoints"), pickups: try integer("pickups")
            )
        }
        return Contents(timeZone: nil, records: records)
    }

    /// A UUID (version 8, RFC 9562's custom kind) from SHA-256 over the session's identity.
    static func derivedID(deviceID: UUID, logicalID: String, start: String, end: String, at: String) throws -> UUID {
        guard let start = Instant.parse(start), let end = Instant.parse(end) else {
            throw OperatorError.configuration("\(at): sessionStart and sessionEnd must be RFC 3339 instants")
        }
        let identity = ["familysync-usage-v1", deviceID.lowercased, logicalID, Instant.format(start), Instant.format(end)].joined(separator: "\n")
        var bytes = Array(SHA256.hash(data: Data(identity.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "'\(key.stringValue)' is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.dataCorrupted(let context):
            "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' has the wrong type or value"
        default: "\(error)"
        }
    }
}
