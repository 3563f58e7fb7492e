import Foundation

/// A record type of PROTOCOL §5.2, declared once: the zones it may live in, who writes it through
/// which route, what its fields must be, and what it is derived from in the transaction that
/// writes its sources.
public struct RecordType: Sendable {
    public enum Route: Sendable, Equatable {
        /// Written through `records/modify` by these roles; a child only with `childOperations`
        /// (a parent may do every operation).
        case modify(writers: Set<DeviceRole>, childOperations: Set<RecordOperationType> = Set(RecordOperationType.allCases))
        /// Written only through its own endpoint, or by the server; named in the refusal.
        case endpoint(String)
    }

    public var name: String
    public var zones: Set<RecordSchema.ZoneKind>
    public var route: Route
    /// Checks a record's fields and name (`field` is the path to name in the error); nil: free-form.
    public var validate: Validation?
    /// Live records of this type a zone may hold (PROTOCOL §14); nil: no limit of its own.
    public var maximumPerZone: Int?
    /// Record names of this type only the server writes, with the endpoint that does.
    public var reservedNames: [String: String]
    /// The members of its fields that name categories (§9.1: a family's own needs its record
    /// before a write names it).
    public var categoryMembers: [CategoryMember]
    /// A rule of a child's (§15.4): a parent's or the server's writes of it go in the audit log.
    public var audited: Bool
    /// How long its records are kept (§15.1), by which of the family's retention settings and
    /// counted from when; nil: kept until deleted.
    public var retention: RecordRetention?

    public typealias Validation = @Sendable (_ fields: [String: JSONValue], _ recordName: String, _ field: String) throws(FamilySyncError) -> Void
    /// The record types it is derived from, each with its pure derivation: when records of such a
    /// type are committed, the change log runs it and commits what it derives with them.
    public var derivedFrom: [(source: String, derivation: Derivation)]

    public init(
        _ name: String, zones: Set<RecordSchema.ZoneKind>, route: Route,
        validate: Validation? = nil, derivedFrom: [(source: String, derivation: Derivation)] = [], maximumPerZone: Int? = nil, reservedNames: [String: String] = [:],
        categoryMembers: [CategoryMember] = [], audited: Bool = false, retention: RecordRetention? = nil
    ) {
        self.audited = audited
        self.retention = retention
        self.maximumPerZone = maximumPerZone
        self.categoryMembers = categoryMembers
        self.reservedNames = reservedNames
        self.name = name
        self.zones = zones
        self.route = route
        self.validate = validate
        self.derivedFrom = derivedFrom
    }
}

/// The record types the server knows. A new type is one declaration here, plus its pure
/// validation and derivation where it has them; the change log runs the derivations of whatever
/// it commits.
public enum RecordTypeRegistry {
    public static let types: [String: RecordType] = Dictionary(uniqueKeysWithValues: [
        // A tracked device publishes the apps it picked (§11; only it can see them), but does not
        // force past §5.4 nor delete what a parent configured.
        RecordType(RecordTypeName.appConfiguration, zones: [.child], route: .modify(writers: [.parent, .child], childOperations: [.create, .update, .replace]), validate: AppConfiguration.validate, categoryMembers: [.single("category")], audited: true),
        RecordType(RecordTypeName.deviceSettings, zones: [.child, .member, .family], route: .modify(writers: [.parent]), reservedNames: [ParentPIN.recordName: "PUT /v1/members/{id}/pin"], audited: true),
        RecordType(RecordTypeName.configurationCommand, zones: [.child], route: .endpoint("POST /v1/devices/{id}/commands and POST /v1/commands/{id}/result"), audited: true, retention: .init(.commands)),
        RecordType(RecordTypeName.usageRecord, zones: [.child], route: .endpoint("POST /v1/usage"), retention: .init(.usageSessions, from: .instantField("sessionEnd"))),
        RecordType(RecordTypeName.dailyTotals, zones: [.child], route: .endpoint("POST /v1/usage/totals"), retention: .init(.dailyTotals, from: .dayField("date"))),
        RecordType(
            RecordTypeName.dailySummary, zones: [.child], route: .endpoint("the server (it derives them from usage and daily totals)"),
            derivedFrom: [(RecordTypeName.usageRecord, DailySummary.derivation), (RecordTypeName.dailyTotals, DailySummary.totalsDerivation)], retention: .init(.summaries)
        ),
        RecordType(
            RecordTypeName.weeklySummary, zones: [.child], route: .endpoint("the server (it derives them from daily summaries)"),
            derivedFrom: [(RecordTypeName.dailySummary, WeeklySummary.derivation)], retention: .init(.summaries)
        ),
        RecordType(
            RecordTypeName.deviceHealth, zones: [.child], route: .endpoint("the server (from POST /v1/devices/me/health and its stale detector, §10)"),
            derivedFrom: [(HealthDay.source, DeviceHealth.derivation)]
        ),
        RecordType(RecordTypeName.category, zones: [.family], route: .modify(writers: [.parent]), validate: CategoryFields.validate, audited: true),
        RecordType(RecordTypeName.schedule, zones: [.member], route: .modify(writers: [.parent]), validate: Schedule.validate, maximumPerZone: Limits.schedulesPerMember, categoryMembers: [.list("categories")], audited: true),
        RecordType(RecordTypeName.shieldConfiguration, zones: [.member], route: .modify(writers: [.parent]), validate: ShieldConfigurationFields.validate, maximumPerZone: 100, audited: true),
        RecordType(RecordTypeName.budget, zones: [.member], route: .modify(writers: [.parent]), validate: Budget.validate, maximumPerZone: 100, categoryMembers: [.single("category")], audited: true),
        RecordType(
            RecordTypeName.alert, zones: [.member], route: .endpoint("the server (§9.4: when an upload reaches a budget's percent), and POST /v1/alerts/{id}/dismiss"),
            derivedFrom: [(RecordTypeName.dailySummary, Alert.budgetDerivation), (HealthDay.source, Alert.trackingDerivation)], retention: .init(.alerts)
        ),
    ].map { ($0.name, $0) })

    /// What records of `type` derive, by derived type name; none for a type nothing derives from.
    public static func derivations(from type: String) -> [Derivation] {
        derived[type] ?? []
    }

    private static let derived: [String: [Derivation]] = {
        var bySource: [String: [(String, Derivation)]] = [:]
        for type in types.values {
            for (source, derivation) in type.derivedFrom { bySource[source, default: []].append((type.name, derivation)) }
        }
        return bySource.mapValues { $0.sorted { $0.0 < $1.0 }.map(\.1) }
    }()

    /// The categories a written record names (its type's `categoryMembers`), each with its path
    /// under `field` (the record's fields); none for a deletion or a type that names none.
    public static func categories(namedBy record: Record, field: String) -> [NamedCategory] {
        guard !record.deleted, let type = types[record.recordType] else { return [] }
        return type.categoryMembers.flatMap { $0.named(in: record.fields, field: field) }
    }
}

/// Records a type derives from what is written, in the same transaction (`UsageRecord` →
/// `DailySummary` → `Alert`). Pure: for the live records of its type being committed it makes a
/// plan, the change log runs the plan's reads and hands their rows to the plan's next step, which
/// either derives records (each into its zone) or reads more; what it derives is committed with
/// the records that caused it, and runs its own type's derivations in turn.
public struct Derivation: Sendable {
    public struct Plan: Sendable {
        /// The stored records it needs (as they are before this write).
        public var reads: [StoredRecordQuery]
        /// What to write besides, or what to read next, from what the reads found.
        public var next: @Sendable (_ stored: [StoredRecord]) -> Step

        public init(reads: [StoredRecordQuery], then next: @escaping @Sendable (_ stored: [StoredRecord]) -> Step) {
            self.reads = reads
            self.next = next
        }

        /// Records derived into the zone written (`context.zone`).
        public init(reads: [StoredRecordQuery], into zone: String, derive: @escaping @Sendable (_ stored: [StoredRecord]) -> [Record]) {
            self.init(reads: reads) { stored in .derived(derive(stored).map { Derived($0, into: zone) }) }
        }

        /// Nothing to read, nothing to write.
        public static let none = Plan(reads: []) { _ in .derived([]) }
    }

    public enum Step: Sendable {
        case derived([Derived])
        /// Another read, whose rows decide (a derivation that must know which of its candidates
        /// exist already).
        case read(Plan)
    }

    /// A derived record and the zone it is written into.
    public struct Derived: Sendable {
        public var record: Record
        public var zone: String

        public init(_ record: Record, into zone: String) {
            self.record = record
            self.zone = zone
        }
    }

    public var plan: @Sendable (_ written: [Record], _ context: DerivationContext) -> Plan

    public init(plan: @escaping @Sendable (_ written: [Record], _ context: DerivationContext) -> Plan) {
        self.plan = plan
    }
}

/// What a derivation knows besides the records: where, whose, in which time zone, when.
public struct DerivationContext: Sendable {
    public var zone: Zone
    /// The device whose write this is.
    public var writer: UUID
    /// The local days of the zone's owner (a child's device, or the upload's `timeZone`).
    public var timeZone: TimeZone
    public var now: Date
    /// The kinds of the family's categories (its own `x-…` ones from their records).
    public var categoryKinds: CategoryKinds
    /// The device whose zone this is, when it is a device's (`child-…`, `device-…`).
    public var owner: ZoneOwner?

    public init(zone: Zone, writer: UUID, timeZone: TimeZone, now: Date, categoryKinds: CategoryKinds = CategoryKinds(), owner: ZoneOwner? = nil) {
        self.zone = zone
        self.writer = writer
        self.timeZone = timeZone
        self.now = now
        self.categoryKinds = categoryKinds
        self.owner = owner
    }
}

/// The device a zone belongs to, and its member's devices that have zones of their own (whose
/// days add up to the member's, §8).
public struct ZoneOwner: Sendable, Equatable {
    public struct MemberDevice: Sendable, Equatable {
        public var deviceID: UUID
        public var platform: DevicePlatform
        public var zoneName: String

        public init(deviceID: UUID, platform: DevicePlatform, zoneName: String) {
            self.deviceID = deviceID
            self.platform = platform
            self.zoneName = zoneName
        }
    }

    public var deviceID: UUID
    public var deviceName: String
    /// As the device registered it (Foundation calls UTC "GMT").
    public var timeZoneName: String
    public var memberID: UUID?
    /// Oldest first, the owner among them.
    public var memberDevices: [MemberDevice]

    public init(deviceID: UUID, deviceName: String, timeZoneName: String, memberID: UUID?, memberDevices: [MemberDevice]) {
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.timeZoneName = timeZoneName
        self.memberID = memberID
        self.memberDevices = memberDevices
    }

    /// Its local days' time zone; UTC for a name no longer known.
    public var timeZone: TimeZone { TimeZone(identifier: timeZoneName) ?? .gmt }
}

/// What a derivation reads of a stored record: its name, type, fields, and when it was made
/// (a record written again keeps its creation). Only that is read, so that a derivation over
/// thousands of stored sessions costs no more than it must.
public struct StoredRecord: Sendable, Equatable {
    public var recordName: String
    public var recordType: String
    public var fields: [String: JSONValue]
    public var createdAt: Date
    /// The zone it was read from.
    public var zoneName: String
    public var deleted: Bool

    public init(recordName: String, recordType: String, fields: [String: JSONValue], createdAt: Date, zoneName: String = "", deleted: Bool = false) {
        self.recordName = recordName
        self.recordType = recordType
        self.fields = fields
        self.createdAt = createdAt
        self.zoneName = zoneName
        self.deleted = deleted
    }

    public init(_ record: Record) {
        self.init(recordName: record.recordName, recordType: record.recordType, fields: record.fields, createdAt: record.createdAt)
    }
}

/// A read of live records a derivation asks for, of the zone written unless it names others.
public enum StoredRecordQuery: Sendable, Equatable {
    /// Records by name.
    case named([String])
    /// Records of `type` whose instants `[startField, endField)` overlap `interval` (instants are
    /// stored as fixed-width UTC text, so text order is time order).
    case overlapping(type: String, startField: String, endField: String, interval: DateInterval)
    /// Records by name in other zones; with `includingDeleted`, tombstones too (a record made
    /// once, and dismissed or deleted since, is not made again).
    case namedIn(zones: [String], names: [String], includingDeleted: Bool = false)
    /// Every live record of `type` in `zone`.
    case ofType(String, zone: String)
}

extension DailySummary {
    /// `UsageRecord` → `DailySummary`: the days the new sessions touch are recomputed from every
    /// session stored for them, the day's reported totals and the new sessions
    /// (`DailySummaryCalculator`); a day whose summary comes out as stored is not written again,
    /// nor an empty day that has none.
    public static let derivation = Derivation { written, context in
        let fresh = written.compactMap(UsageSession.init(record:))
        return plan(days: days(touchedBy: fresh, in: context.timeZone), sessions: fresh, totals: [], written: written, context: context)
    }

    /// `DailyTotals` → `DailySummary` (§9.2): the day of the new totals, recomputed as above with
    /// them in place of the stored ones.
    public static let totalsDerivation = Derivation { written, context in
        let fresh = written.compactMap(DailyTotals.init(record:))
        return plan(days: Set(fresh.map(\.date)).sorted(), sessions: [], totals: fresh, written: written, context: context)
    }

    /// Reads every session overlapping `days` and their stored totals and summaries; derives the
    /// summaries that change. What is being written (`written`) replaces what is stored of it.
    /// The two derivations never meet in one commit (each type has its own endpoint).
    static func plan(days changing: [String], sessions fresh: [UsageSession], totals freshTotals: [DailyTotals], written: [Record], context: DerivationContext) -> Derivation.Plan {
        guard let child = context.zone.childDeviceID,
            let first = changing.first.flatMap({ DailySummaryCalculator.interval(of: $0, in: context.timeZone) }),
            let last = changing.last.flatMap({ DailySummaryCalculator.interval(of: $0, in: context.timeZone) })
        else { return .none }
        let reads: [StoredRecordQuery] = [
            .overlapping(type: RecordTypeName.usageRecord, startField: "sessionStart", endField: "sessionEnd", interval: DateInterval(start: first.start, end: last.end)),
            .named(changing.map(recordName) + changing.map(DailyTotals.recordName)),
        ]
        return Derivation.Plan(reads: reads, into: context.zone.name) { stored in
            let names = Set(written.map(\.recordName))
            let unchanged = stored.filter { !names.contains($0.recordName) }
            let sessions = unchanged.filter { $0.recordType == RecordTypeName.usageRecord }.compactMap { UsageSession(fields: $0.fields) } + fresh
            let totals = unchanged.filter { $0.recordType == RecordTypeName.dailyTotals }.compactMap { DailyTotals(fields: $0.fields) } + freshTotals
            var previous: [String: StoredRecord] = [:]
            for record in stored where record.recordType == RecordTypeName.dailySummary { previous[record.recordName] = record }
            let computed = DailySummaryCalculator.summaries(
                of: sessions, totals: totals, days: changing, deviceID: child, timeZone: context.timeZone, at: context.now, kinds: context.categoryKinds
            )
            return computed.compactMap { summary in
                let before = previous[summary.recordName]
                if let before, let stored = DailySummary(fields: before.fields), stored.sameContent(as: summary) { return nil }
                if before == nil, summary.byApp.isEmpty { return nil }  // nothing stored, nothing to store
                return Record(
                    recordName: summary.recordName, recordType: RecordTypeName.dailySummary, fields: summary.fields, changeTag: "", deleted: false,
                    createdAt: before?.createdAt ?? context.now, createdBy: context.writer, modifiedAt: context.now, modifiedBy: context.writer,
                    modifiedRole: .server, clientModifiedAt: context.now
                )
            }
        }
    }

    /// The local days sessions count on, in order.
    public static func days(touchedBy sessions: [UsageSession], in timeZone: TimeZone) -> [String] {
        var days: Set<String> = []
        for session in sessions { days.formUnion(DailySummaryCalculator.days(of: session, in: timeZone)) }
        return days.sorted()
    }
}

extension UsageSession {
    /// A live `UsageRecord`'s session; nil for other records and tombstones.
    public init?(record: Record) {
        guard record.recordType == RecordTypeName.usageRecord, !record.deleted else { return nil }
        self.init(fields: record.fields)
    }
}
