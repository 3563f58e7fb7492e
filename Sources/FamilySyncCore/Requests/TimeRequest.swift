import Foundation

/// What a child asks more time for (PROTOCOL §16): an app, a category, all screen time (the
/// `"*"` budget), or a schedule's shield in force.
public enum TimeRequestTarget: Sendable, Hashable {
    case app(logicalID: String)
    case category(CategoryID)
    case allScreenTime
    case schedule(scheduleID: String)

    public var kind: String {
        switch self {
        case .app: "app"
        case .category: "category"
        case .allScreenTime: "budget"
        case .schedule: "schedule"
        }
    }

    /// The target's id on the wire: the app's `logicalID`, the category's id, `"*"`, the schedule's id.
    public var id: String {
        switch self {
        case .app(let logicalID): logicalID
        case .category(let category): category.rawValue
        case .allScreenTime: "*"
        case .schedule(let scheduleID): scheduleID
        }
    }

    /// Reads `kind` and `id` as a request names them; `BAD_REQUEST` on `field` otherwise.
    public init(kind: String, id: String, field: String) throws(FamilySyncError) {
        guard (1...200).contains(id.utf8.count) else { throw .badRequest("A target's id is 1-200 characters.", field: field + ".id") }
        switch kind {
        case "app": self = .app(logicalID: id)
        case "category":
            guard let category = CategoryID(rawValue: id) else {
                throw .badRequest("A category target is a built-in category or a family's own x-….", field: field + ".id")
            }
            self = .category(category)
        case "budget":
            guard id == "*" else { throw .badRequest("A budget target is \"*\", all screen time.", field: field + ".id") }
            self = .allScreenTime
        case "schedule": self = .schedule(scheduleID: id)
        default: throw .badRequest("A target's kind is app, category, budget or schedule.", field: field + ".kind")
        }
    }

    /// Whether a grant for this target lifts `scope`'s budget: an app's or a category's grant
    /// lifts its category's and all screen time's (the child could not use the time otherwise),
    /// all screen time's only its own; a schedule's grant opens the shield and lifts no budget.
    public func lifts(_ scope: Budget.Scope, categoryOfApp: (String) -> CategoryID?) -> Bool {
        switch (self, scope) {
        case (.schedule, _): false
        case (_, .all): true
        case (.allScreenTime, .category): false
        case (.category(let asked), .category(let budget)): asked == budget
        case (.app(let logicalID), .category(let budget)): categoryOfApp(logicalID) == budget
        }
    }
}

/// How much time: one of the offered spans, or the rest of the child's local day.
public enum TimeSpan: Sendable, Hashable {
    case minutes(Int)
    case restOfToday

    /// What a child may ask for.
    public static let askable: [Int] = [15, 30, 60]
    /// What a parent may approve besides the rest of the day.
    public static let approvable = 1...480

    /// Reads `minutes` and `restOfToday` (exactly one given) as a request names them.
    public init(minutes: Int?, restOfToday: Bool?, allowed: ClosedRange<Int>? = nil, field: String) throws(FamilySyncError) {
        switch (minutes, restOfToday ?? false) {
        case (nil, true): self = .restOfToday
        case (let minutes?, false):
            if let allowed {
                guard allowed.contains(minutes) else {
                    throw .badRequest("minutes is from \(allowed.lowerBound) to \(allowed.upperBound), or restOfToday.", field: field.isEmpty ? "minutes" : field + ".minutes")
                }
            } else {
                guard Self.askable.contains(minutes) else {
                    throw .badRequest("minutes is 15, 30 or 60, or restOfToday.", field: field.isEmpty ? "minutes" : field + ".minutes")
                }
            }
            self = .minutes(minutes)
        case (_?, true): throw .badRequest("Give minutes or restOfToday, not both.", field: field.isEmpty ? "restOfToday" : field + ".restOfToday")
        case (nil, false): throw .badRequest("Give minutes or restOfToday.", field: field.isEmpty ? "minutes" : field + ".minutes")
        }
    }

    public var minutes: Int? {
        if case .minutes(let minutes) = self { minutes } else { nil }
    }
}

public enum TimeRequestStatus: String, Sendable, Codable, CaseIterable {
    case pending, approved, declined, expired

    public var isFinal: Bool { self != .pending }
}

/// A child's request for more time and, once a parent answers it, the decision and its grant
/// (PROTOCOL §16). A `TimeRequest` record `time-request-<requestID>` in the member's zone, which
/// the child's devices and the parents read by the change feed.
public struct TimeRequest: Sendable, Equatable {
    public var requestID: UUID
    public var memberID: UUID
    /// The device that asked; its time zone makes the day.
    public var deviceID: UUID
    public var target: TimeRequestTarget
    public var asked: TimeSpan
    public var note: String?
    public var status: TimeRequestStatus
    /// The asking device's local day (YYYY-MM-DD): the day a grant counts on.
    public var date: String
    public var createdAt: Date
    public var expiresAt: Date
    public var decidedAt: Date?
    public var decidedBy: UUID?
    /// What was approved (nil when declined or undecided).
    public var granted: TimeSpan?
    /// When an approved grant ends: the decision plus its minutes, or the end of the day.
    public var until: Date?
    public var reply: String?

    public init(
        requestID: UUID, memberID: UUID, deviceID: UUID, target: TimeRequestTarget, asked: TimeSpan, note: String?, status: TimeRequestStatus,
        date: String, createdAt: Date, expiresAt: Date, decidedAt: Date? = nil, decidedBy: UUID? = nil, granted: TimeSpan? = nil,
        until: Date? = nil, reply: String? = nil
    ) {
        self.requestID = requestID
        self.memberID = memberID
        self.deviceID = deviceID
        self.target = target
        self.asked = asked
        self.note = note
        self.status = status
        self.date = date
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.decidedAt = decidedAt
        self.decidedBy = decidedBy
        self.granted = granted
        self.until = until
        self.reply = reply
    }

    public var recordName: String { Self.recordName(requestID) }
    public static func recordName(_ id: UUID) -> String { "time-request-\(id.lowercased)" }

    /// How long a request waits for a parent, at most (and never past the child's day).
    public static let waitsFor: TimeInterval = 3600
    /// Requests a member may make in one local day.
    public static let dailyLimit = 10
    public static let maximumNoteLength = 200
    public static let maximumReplyLength = 200

    /// The status as of `now`: a pending request past `expiresAt` has expired.
    public func expiringIfDue(at now: Date) -> TimeRequest {
        guard status == .pending, now >= expiresAt else { return self }
        var expired = self
        expired.status = .expired
        return expired
    }

    /// What asking does.
    public enum Asking: Sendable, Equatable {
        /// A request made now.
        case made(TimeRequest)
        /// The pending request for the same target, answered again (nothing is written).
        case pending(TimeRequest)
    }

    /// A child's device asks at `now`: the pending request for the same target if there is one,
    /// else a new request, unless the member has made `dailyLimit` today (429, `Retry-After` until
    /// the device's next midnight). `earlier`: the member's requests of that day and the pending
    /// ones, as stored (expiry is applied here).
    public static func ask(
        for target: TimeRequestTarget, _ asked: TimeSpan, note: String?, member: UUID, device: UUID, timeZone: TimeZone, at now: Date,
        earlier: [TimeRequest], requestID: UUID = UUID()
    ) throws(FamilySyncError) -> Asking {
        let note = try checkedText(note, limit: maximumNoteLength, field: "note")
        let date = DailySummaryCalculator.day(of: now, in: timeZone)
        guard let day = DailySummaryCalculator.interval(of: date, in: timeZone) else { throw .badRequest("The device's day cannot be read.", field: "timeZone") }
        let current = earlier.map { $0.expiringIfDue(at: now) }.filter { $0.memberID == member }
        if let pending = current.first(where: { $0.status == .pending && $0.target == target }) { return .pending(pending) }
        guard current.filter({ $0.date == date }).count < dailyLimit else {
            let wait = max(1, Int(day.end.timeIntervalSince(now).rounded(.up)))
            throw FamilySyncError(.throttled, "A member may ask for more time \(dailyLimit) times a day.", retryAfter: wait)
        }
        return .made(TimeRequest(
            requestID: requestID, memberID: member, deviceID: device, target: target, asked: asked, note: note, status: .pending, date: date,
            createdAt: now, expiresAt: min(now.addingTimeInterval(waitsFor), day.end)
        ))
    }

    /// A parent's answer.
    public enum Decision: Sendable, Equatable {
        case approve(TimeSpan)
        case decline
    }

    /// The request as `parent` decides it at `now`, in `timeZone` (the asking device's): the first
    /// decision stands, and one on a request already decided or expired is 409 naming its status.
    /// An approval's grant runs from now for its minutes, and never past the end of the request's day.
    public func deciding(_ decision: Decision, reply: String?, by parent: UUID, timeZone: TimeZone, at now: Date) throws(FamilySyncError) -> TimeRequest {
        let current = expiringIfDue(at: now)
        guard current.status == .pending else {
            throw FamilySyncError(.conflict, "The request is \(current.status.rawValue) already; that decision stands.")
        }
        var decided = current
        decided.reply = try Self.checkedText(reply, limit: Self.maximumReplyLength, field: "reply")
        decided.decidedAt = now
        decided.decidedBy = parent
        switch decision {
        case .decline:
            decided.status = .declined
        case .approve(let span):
            let end = DailySummaryCalculator.interval(of: date, in: timeZone)?.end ?? now
            decided.status = .approved
            decided.granted = span
            decided.until = switch span {
            case .minutes(let minutes): min(now.addingTimeInterval(TimeInterval(minutes * 60)), end)
            case .restOfToday: end
            }
        }
        return decided
    }

    /// Whether this is a grant in force at `instant`.
    public func isOpen(at instant: Date) -> Bool {
        guard status == .approved, let decidedAt, let until else { return false }
        return decidedAt <= instant && instant < until
    }

    private static func checkedText(_ text: String?, limit: Int, field: String) throws(FamilySyncError) -> String? {
        guard let text else { return nil }
        guard (1...limit).contains(text.count), !text.allSatisfy(\.isWhitespace) else {
            throw .badRequest("\(field) is 1-\(limit) characters, not blank.", field: field)
        }
        return text
    }
}

/// What approved requests add to a day's budgets (PROTOCOL §16): the minutes of each grant of
/// that day whose target lifts the budget, or no limit at all for a grant of the rest of the day.
public enum GrantedAllowance: Sendable, Equatable {
    case minutes(Int)
    case restOfDay

    /// `requests`' grants on `date` that lift `scope`.
    public static func of(_ scope: Budget.Scope, on date: String, requests: [TimeRequest], categoryOfApp: (String) -> CategoryID?) -> GrantedAllowance {
        var minutes = 0
        for request in requests where request.status == .approved && request.date == date && request.target.lifts(scope, categoryOfApp: categoryOfApp) {
            switch request.granted {
            case .restOfToday?: return .restOfDay
            case .minutes(let granted)?: minutes += granted
            case nil: break
            }
        }
        return .minutes(minutes)
    }
}
