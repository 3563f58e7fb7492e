import Foundation

/// What a family's retention settings cover (PROTOCOL §15.1): each kind is kept for its number of
/// days, at most the operator's maximum (`--usage-retention-days`), which is also the default.
public enum RetentionKind: String, Sendable, CaseIterable, Codable {
    /// `UsageRecord`s, by when the session ended.
    case usageSessions
    /// `DailyTotals`, once their day has ended in every time zone.
    case dailyTotals
    /// `DailySummary` and `WeeklySummary` records, by when they were first made.
    case summaries
    /// `Alert` records, by when they were raised.
    case alerts
    /// Health days, heartbeat gaps and the extension's errors (§10), by their day or time.
    case health
    /// `ConfigurationCommand` records, by when they were sent.
    case commands
    /// The audit log (§15.4) and its daily read counts.
    case audit
}

/// A family's retention: days per kind, each within the operator's maximum; a kind it does not
/// set is kept the maximum.
public struct RetentionSettings: Sendable, Equatable {
    public static let minimumDays = 1

    /// The family's own choices; absent kinds follow the maximum.
    public var days: [RetentionKind: Int]

    public init(days: [RetentionKind: Int] = [:]) {
        self.days = days
    }

    /// The days `kind` is kept, given the operator's maximum.
    public func days(_ kind: RetentionKind, maximum: Int) -> Int {
        min(days[kind] ?? maximum, maximum)
    }

    /// The instant before which `kind` is gone.
    public func cutoff(_ kind: RetentionKind, maximum: Int, now: Date) -> Date {
        now.addingTimeInterval(-Double(days(kind, maximum: maximum)) * 86_400)
    }

    /// Refuses a number of days outside 1…`maximum`, naming `days.<kind>`.
    public static func validated(_ days: [RetentionKind: Int], maximum: Int) throws(FamilySyncError) -> RetentionSettings {
        for kind in RetentionKind.allCases {
            guard let value = days[kind] else { continue }
            guard (minimumDays...maximum).contains(value) else {
                throw .badRequest("Keep \(kind.rawValue) between \(minimumDays) and \(maximum) days (the server's maximum).", field: "days.\(kind.rawValue)")
            }
        }
        return RetentionSettings(days: days)
    }
}

/// How a record type's records age out (`RecordType.retention`).
public struct RecordRetention: Sendable, Equatable {
    public enum Age: Sendable, Equatable {
        /// From the record's creation.
        case created
        /// From the instant in a text field (`sessionEnd`).
        case instantField(String)
        /// From the end of the day in a date field (`date`), in every time zone.
        case dayField(String)
    }

    public var kind: RetentionKind
    public var age: Age

    public init(_ kind: RetentionKind, from age: Age = .created) {
        self.kind = kind
        self.age = age
    }
}

extension RetentionSettings {
    /// How long usage of a kind is kept: the server's retention, or the family's own days when it
    /// set fewer (§15.1; nil: it set none).
    public static func keptSeconds(server: TimeInterval, familyDays: Int?) -> TimeInterval {
        min(server, familyDays.map { Double($0) * 86_400 } ?? server)
    }

    /// Refuses the first of `instants` (sessions' ends) older than usage is kept
    /// (`keptSeconds(server:familyDays:)`): it would go at the retention job's next run, and its
    /// day's summary would be recomputed without what already went. The controller checks with
    /// the server's retention before any read; the store again with the family's.
    public static func checkKept(_ instants: [Date], server: TimeInterval, familyDays: Int?, now: Date, field: (Int) -> String) throws(FamilySyncError) {
        let kept = keptSeconds(server: server, familyDays: familyDays)
        if let index = instants.firstIndex(where: { $0 < now.addingTimeInterval(-kept) }) {
            throw .badRequest("The session ended longer ago than usage is kept (\(Int(kept / 86_400)) days).", field: field(index))
        }
    }
}
