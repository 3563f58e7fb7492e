import Foundation

/// A repeating shield schedule (PROTOCOL §11): a `Schedule` record `schedule-<scheduleID>` in a
/// member's zone, written by parents. Its interval is local wall-clock time on the weekdays it
/// names; one that crosses midnight (21:00–07:00) belongs to the weekday it starts on.
public struct Schedule: Sendable, Equatable {
    /// A local time of day.
    public struct TimeOfDay: Sendable, Equatable, Comparable {
        public var hour: Int
        public var minute: Int

        public init(hour: Int, minute: Int) {
            self.hour = hour
            self.minute = minute
        }

        public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool { (lhs.hour, lhs.minute) < (rhs.hour, rhs.minute) }
    }

    public enum Mode: String, Sendable, CaseIterable {
        /// The listed apps and categories are shielded.
        case shield
        /// Everything is shielded but the listed apps and categories.
        case allowOnly
    }

    public var scheduleID: String
    public var name: String
    public var enabled: Bool
    public var start: TimeOfDay
    public var end: TimeOfDay
    /// ISO weekdays, Monday = 1 … Sunday = 7.
    public var weekdays: Set<Int>
    public var warningMinutes: Int
    public var mode: Mode
    public var applications: [String]
    public var categories: [CategoryID]
    public var shieldConfigurationID: String?

    public init(
        scheduleID: String, name: String, enabled: Bool = true, start: TimeOfDay, end: TimeOfDay, weekdays: Set<Int> = Set(1...7), warningMinutes: Int = Schedule.defaultWarningMinutes,
        mode: Mode = .shield, applications: [String] = [], categories: [CategoryID] = [], shieldConfigurationID: String? = nil
    ) {
        self.scheduleID = scheduleID
        self.name = name
        self.enabled = enabled
        self.start = start
        self.end = end
        self.weekdays = weekdays
        self.warningMinutes = warningMinutes
        self.mode = mode
        self.applications = applications
        self.categories = categories
        self.shieldConfigurationID = shieldConfigurationID
    }

    /// Whether it runs past midnight into the next day.
    public var crossesMidnight: Bool { end < start }

    public var recordName: String { Self.recordName(scheduleID) }
    public static func recordName(_ id: String) -> String { "schedule-\(id)" }

    /// A new schedule's id from its name: ASCII letters and digits, lower-cased, anything else one
    /// `-` ("School nights" → `school-nights`), at most 40 characters, `schedule` when nothing is
    /// left. Always an identifier the rules take.
    public static func suggestedID(forName name: String) -> String {
        let base = String(name.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" })
            .split(separator: "-").joined(separator: "-").prefix(40)
        return base.isEmpty ? "schedule" : String(base)
    }

    /// A warning this many minutes before a schedule starts, when it names none.
    public static let defaultWarningMinutes = 5

    /// A schedule's or a shield configuration's id: 1–64 of a-z, 0-9, `_` and `-`.
    public static func isIdentifier(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5f || $0 == 0x2d }
    }

    static let rules = FieldRules(RecordTypeName.schedule, [
        "scheduleID": (.text(isIdentifier, "1–64 of a-z, 0-9, _ and -"), true),
        "name": (.string(1...100), true),
        "enabled": (.bool, true),
        "intervalStart": (.timeOfDay, true),
        "intervalEnd": (.timeOfDay, true),
        "weekdays": (.integerList(count: 1...7, range: 1...7), false),
        "warningTimeMinutes": (.integer(0...60), false),
        "mode": (.oneOf(Set(Mode.allCases.map(\.rawValue))), true),
        "applications": (.stringList(count: 0...500, check: { (1...255).contains($0.utf8.count) }, "logicalIDs of 1–255 bytes"), false),
        "categories": (.stringList(count: 0...20, check: { CategoryID(rawValue: $0) != nil }, "category ids"), false),
        "shieldConfigurationID": (.text(isIdentifier, "1–64 of a-z, 0-9, _ and -"), false),
    ])

    /// §11's rules: every member of its kind, the record named after its id, weekdays once each,
    /// an interval that is not empty (start = end is 400).
    public static func validate(_ fields: [String: JSONValue], recordName: String, field: String) throws(FamilySyncError) {
        try rules.validate(fields, field: field)
        guard let schedule = Schedule(fields: fields) else { throw .badRequest("The schedule cannot be read.", field: field) }
        guard recordName == schedule.recordName else {
            throw .badRequest("A Schedule record is named schedule-<its scheduleID>: \(schedule.recordName).", field: "\(field).scheduleID")
        }
        if case .array(let days)? = fields["weekdays"], days.count != schedule.weekdays.count {
            throw .badRequest("weekdays names each day once.", field: "\(field).weekdays")
        }
        guard schedule.start != schedule.end else {
            throw .badRequest("intervalEnd is intervalStart: the interval would be empty (21:00–07:00 runs across midnight).", field: "\(field).intervalEnd")
        }
    }

    /// The record's fields (what `init(fields:)` reads back).
    public var fields: [String: JSONValue] {
        func time(_ value: TimeOfDay) -> JSONValue { .object(["hour": .number(Double(value.hour)), "minute": .number(Double(value.minute))]) }
        var fields: [String: JSONValue] = [
            "scheduleID": .string(scheduleID), "name": .string(name), "enabled": .bool(enabled), "intervalStart": time(start), "intervalEnd": time(end),
            "weekdays": .array(weekdays.sorted().map { .number(Double($0)) }), "warningTimeMinutes": .number(Double(warningMinutes)),
            "mode": .string(mode.rawValue), "applications": .array(applications.map(JSONValue.string)),
            "categories": .array(categories.map { .string($0.rawValue) }),
        ]
        if let shieldConfigurationID { fields["shieldConfigurationID"] = .string(shieldConfigurationID) }
        return fields
    }

    /// From a stored record's fields; nil when they are not a schedule.
    public init?(fields: [String: JSONValue]) {
        func string(_ key: String) -> String? { if case .string(let value)? = fields[key] { value } else { nil } }
        func integer(_ value: JSONValue?) -> Int? { if case .number(let number)? = value, let int = Int(exactly: number) { int } else { nil } }
        func time(_ key: String) -> TimeOfDay? {
            guard case .object(let object)? = fields[key], let hour = integer(object["hour"]), let minute = integer(object["minute"]) else { return nil }
            return TimeOfDay(hour: hour, minute: minute)
        }
        func strings(_ key: String) -> [String] {
            guard case .array(let values)? = fields[key] else { return [] }
            return values.compactMap { if case .string(let text) = $0 { text } else { nil } }
        }
        guard let id = string("scheduleID"), let name = string("name"), case .bool(let enabled)? = fields["enabled"], let start = time("intervalStart"),
            let end = time("intervalEnd"), let mode = string("mode").flatMap(Mode.init(rawValue:))
        else { return nil }
        var weekdays = Set(1...7)
        if case .array(let days)? = fields["weekdays"] { weekdays = Set(days.compactMap(integer)) }
        self.init(
            scheduleID: id, name: name, enabled: enabled, start: start, end: end, weekdays: weekdays, warningMinutes: integer(fields["warningTimeMinutes"]) ?? Self.defaultWarningMinutes,
            mode: mode, applications: strings("applications"), categories: strings("categories").compactMap(CategoryID.init(rawValue:)),
            shieldConfigurationID: string("shieldConfigurationID")
        )
    }

    /// Its intervals that start on local dates from `first` to `last` (inclusive) in `timeZone`.
    /// A local time that does not exist (clocks jump forward over it) is the first instant after
    /// the jump; one that happens twice (clocks go back) is its first.
    public func occurrences(from first: Date, to last: Date, in timeZone: TimeZone) -> [DateInterval] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var occurrences: [DateInterval] = []
        var day = calendar.startOfDay(for: first)
        let stop = calendar.startOfDay(for: last)
        while day <= stop {
            let weekday = (calendar.component(.weekday, from: day) + 5) % 7 + 1  // Sunday 1 … Saturday 7 → ISO
            if weekdays.contains(weekday),
                let begin = Self.instant(start, on: day, calendar),
                let endDay = crossesMidnight ? calendar.date(byAdding: .day, value: 1, to: day) : day,
                let finish = Self.instant(end, on: endDay, calendar), begin < finish {
                occurrences.append(DateInterval(start: begin, end: finish))
            }
            guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
            day = next
        }
        return occurrences
    }

    static func instant(_ time: TimeOfDay, on day: Date, _ calendar: Calendar) -> Date? {
        calendar.date(bySettingHour: time.hour, minute: time.minute, second: 0, of: day, matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)
    }
}
