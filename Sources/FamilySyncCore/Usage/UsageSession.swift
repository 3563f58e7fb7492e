import Foundation

/// One usage record a child uploads (PROTOCOL §7.2), as the server stores it: a `UsageRecord`
/// record `usage-<recordID>` in the child's zone.
public struct UsageSession: Sendable, Equatable {
    /// The category a session counts in (§9.1), stored on the record.
    public typealias Category = CategoryID

    public var recordID: UUID
    public var logicalID: String
    public var displayName: String
    public var bundleIdentifier: String?
    public var category: Category
    public var sessionStart: Date
    public var sessionEnd: Date
    public var totalSeconds: Int
    public var earnedPoints: Int
    /// Times the device was picked up into the app during the session (§9.1, seed 002's
    /// `numberOfPickups`); nil when the device does not say.
    public var pickups: Int?

    public init(
        recordID: UUID, logicalID: String, displayName: String, bundleIdentifier: String? = nil, category: Category,
        sessionStart: Date, sessionEnd: Date, totalSeconds: Int, earnedPoints: Int, pickups: Int? = nil
    ) {
        self.recordID = recordID
        self.logicalID = logicalID
        self.displayName = displayName
        self.bundleIdentifier = bundleIdentifier
        self.category = category
        self.sessionStart = sessionStart
        self.sessionEnd = sessionEnd
        self.totalSeconds = totalSeconds
        self.earnedPoints = earnedPoints
        self.pickups = pickups
    }

    public var recordName: String { Self.recordName(recordID) }
    public static func recordName(_ id: UUID) -> String { "usage-\(id.lowercased)" }

    /// At most this many records an upload.
    public static let maximumPerUpload = 1000
    /// A session may end at most this far in the future (clocks differ a little).
    public static let futureAllowance: TimeInterval = 300
    /// The longest session accepted: a day and a half covers any session across midnight and DST.
    public static let maximumDuration: TimeInterval = 36 * 3600

    /// §7.2's rules, with `field` naming the record (`records[3]`).
    public func validate(now: Date, field: String) throws(FamilySyncError) {
        func bad(_ member: String, _ reason: String) -> FamilySyncError { .badRequest(reason, field: "\(field).\(member)") }
        guard (1...255).contains(logicalID.utf8.count) else { throw bad("logicalID", "logicalID is 1–255 bytes.") }
        guard (1...255).contains(displayName.utf8.count) else { throw bad("displayName", "displayName is 1–255 bytes.") }
        if let bundleIdentifier, bundleIdentifier.utf8.count > 255 { throw bad("bundleIdentifier", "bundleIdentifier is at most 255 bytes.") }
        guard sessionEnd >= sessionStart else { throw bad("sessionEnd", "sessionEnd is before sessionStart.") }
        guard sessionEnd.timeIntervalSince(sessionStart) <= Self.maximumDuration else {
            throw bad("sessionEnd", "A session lasts at most 36 hours; split longer ones.")
        }
        guard sessionEnd <= now.addingTimeInterval(Self.futureAllowance) else {
            throw bad("sessionEnd", "sessionEnd is more than 5 minutes in the future.")
        }
        guard totalSeconds >= 0 else { throw bad("totalSeconds", "totalSeconds is not negative.") }
        guard Double(totalSeconds) <= sessionEnd.timeIntervalSince(sessionStart) + 1 else {
            throw bad("totalSeconds", "totalSeconds is longer than the session (sessionEnd − sessionStart + 1).")
        }
        guard earnedPoints >= 0 else { throw bad("earnedPoints", "earnedPoints is not negative.") }
        if let pickups, pickups < 0 { throw bad("pickups", "pickups is not negative.") }
    }

    /// The record's fields: instants normalised to milliseconds in UTC, so that equal content is
    /// equal text, and text order is time order.
    public var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "recordID": .string(recordID.lowercased), "logicalID": .string(logicalID), "displayName": .string(displayName),
            "category": .string(category.rawValue), "sessionStart": .string(Instant.format(sessionStart)),
            "sessionEnd": .string(Instant.format(sessionEnd)), "totalSeconds": .number(Double(totalSeconds)),
            "earnedPoints": .number(Double(earnedPoints)),
        ]
        if let bundleIdentifier { fields["bundleIdentifier"] = .string(bundleIdentifier) }
        if let pickups { fields["pickups"] = .number(Double(pickups)) }
        return fields
    }

    public init?(fields: [String: JSONValue]) {
        func string(_ key: String) -> String? { if case .string(let value)? = fields[key] { value } else { nil } }
        func integer(_ key: String) -> Int? { if case .number(let value)? = fields[key], let int = Int(exactly: value) { int } else { nil } }
        guard let id = string("recordID").flatMap(UUID.init(uuidString:)), let logicalID = string("logicalID"),
            let displayName = string("displayName"), let category = string("category").flatMap(Category.init(rawValue:)),
            let start = string("sessionStart").flatMap(Instant.parse), let end = string("sessionEnd").flatMap(Instant.parse),
            let total = integer("totalSeconds"), let points = integer("earnedPoints")
        else { return nil }
        self.init(
            recordID: id, logicalID: logicalID, displayName: displayName, bundleIdentifier: string("bundleIdentifier"), category: category,
            sessionStart: start, sessionEnd: end, totalSeconds: total, earnedPoints: points, pickups: integer("pickups")
        )
    }
}

extension UsageSession {
    /// Where a page of usage ended (§7.3's `cursor`): the last record's `sessionEnd` text and
    /// record name, handed to the client as opaque base64 text.
    public struct PageCursor: Sendable, Equatable {
        public var sessionEnd: String
        public var recordName: String

        public init(sessionEnd: String, recordName: String) {
            self.sessionEnd = sessionEnd
            self.recordName = recordName
        }

        /// As the client is given it.
        public var text: String { Data((sessionEnd + "\n" + recordName).utf8).base64EncodedString() }

        /// A cursor the client sent back; 400 naming `cursor` when it is not one the server gave.
        public init(text: String) throws(FamilySyncError) {
            guard let data = Data(base64Encoded: text), let decoded = String(data: data, encoding: .utf8),
                case let parts = decoded.split(separator: "\n", omittingEmptySubsequences: false), parts.count == 2,
                Instant.parse(String(parts[0])) != nil, parts[1].hasPrefix("usage-")
            else {
                throw .badRequest("The cursor is not one this server gave.", field: "cursor")
            }
            self.init(sessionEnd: String(parts[0]), recordName: String(parts[1]))
        }
    }
}
