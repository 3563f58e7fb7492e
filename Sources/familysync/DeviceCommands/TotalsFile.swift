import FamilySyncCore
import FamilySyncProtocol
import Foundation
import SwiftCSV

/// A day's running totals from a file (PROTOCOL §9.2): JSON (the `POST /v1/usage/totals` body, or
/// just its `apps` array) or CSV with a header row naming the apps' members.
enum TotalsFile {
    struct Contents: Equatable {
        var timeZone: String?
        var date: String?
        var apps: [UsageTotalBody]
    }

    static let columns = ["logicalID", "displayName", "bundleIdentifier", "category", "totalSeconds", "pickups", "earnedPoints"]
    static let requiredColumns: Set = ["logicalID", "displayName", "totalSeconds"]

    static func read(_ path: String) throws -> Contents {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw OperatorError.configuration("cannot read the totals file \(path)")
        }
        let first = data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        if path.lowercased().hasSuffix(".json") || first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            return try json(data)
        }
        return try csv(String(decoding: data, as: UTF8.self))
    }

    static func json(_ data: Data) throws -> Contents {
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw OperatorError.configuration("the totals file is not valid JSON")
        }
        var contents = Contents(apps: [])
        let list: [JSONValue]
        switch document {
        case .array(let apps):
            list = apps
        case .object(let body):
            guard case .array(let apps)? = body["apps"] else { throw OperatorError.configuration("the totals file's object has no 'apps' array") }
            if let extra = body.keys.sorted().first(where: { !["apps", "timeZone", "date"].contains($0) }) {
                throw OperatorError.configuration("the totals file has an unknown member '\(extra)'")
            }
            if case .string(let zone)? = body["timeZone"] { contents.timeZone = zone }
            if case .string(let date)? = body["date"] { contents.date = date }
            list = apps
        default:
            throw OperatorError.configuration("the totals file must be an object with 'apps', or an array of apps")
        }
        contents.apps = try list.enumerated().map { index, value in
            guard let fields = value.objectValue else { throw OperatorError.configuration("apps[\(index)] is not an object") }
            if let unknown = fields.keys.sorted().first(where: { !columns.contains($0) }) {
                throw OperatorError.configuration("apps[\(index)] has an unknown member '\(unknown)'")
            }
            do {
                return try WireCoding.makeDecoder().decode(UsageTotalBody.self, from: WireCoding.makeEncoder().encode(JSONValue.object(fields)))
            } catch {
                throw OperatorError.configuration("apps[\(index)] needs logicalID, displayName and totalSeconds (a whole number), and strings or whole numbers for the rest")
            }
        }
        return contents
    }

    static func csv(_ text: String) throws -> Contents {
        let table: CSV<Named>
        do {
            table = try CSV<Named>(string: text, delimiter: .comma)
        } catch {
            throw OperatorError.configuration("the totals file is not valid CSV: \(error)")
        }
        let header = table.header.map { $0.trimmingCharacters(in: .whitespaces) }
        if let unknown = header.first(where: { !columns.contains($0) }) {
            throw OperatorError.configuration("the totals file's column '\(unknown)' is not one of \(columns.joined(separator: ", "))")
        }
        if let missing = requiredColumns.subtracting(header).sorted().first {
            throw OperatorError.configuration("the totals file has no '\(missing)' column")
        }
        let apps = try table.rows.enumerated().map { index, row in
            let at = "row \(index + 2)"  // row 1 is the header
            func value(_ column: String) -> String? {
                row[column].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
            }
            func required(_ column: String) throws -> String {
                guard let text = value(column) else { throw OperatorError.configuration("\(at): \(column) is empty") }
                return text
            }
            func integer(_ column: String) throws -> Int? {
                guard let text = value(column) else { return nil }
                guard let number = Int(text) else { throw OperatorError.configuration("\(at): \(column) is not a whole number") }
                return number
            }
            guard let seconds = try integer("totalSeconds") else { throw OperatorError.configuration("\(at): totalSeconds is empty") }
            return UsageTotalBody(
                logicalID: try required("logicalID"), displayName: try required("displayName"), bundleIdentifier: value("bundleIdentifier"),
                category: value("category"), totalSeconds: seconds, pickups: try integer("pickups"), earnedPoints: try integer("earnedPoints")
            )
        }
        return Contents(apps: apps)
    }
}
