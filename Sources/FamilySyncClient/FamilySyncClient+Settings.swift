import FamilySyncCore
import FamilySyncProtocol
import Foundation

// The calls of what a parent sets: budgets, schedules, shields, apps and categories (§9), alerts, and push (§12).

extension FamilySyncClient {
    // MARK: Budgets and alerts (§9.3–§9.4)

    /// Writes a member's `Budget` record (parents): `fields` as §9.3 describes them
    /// (`Budget.rules`); the record is `budget-<budgetID>` in the member's zone.
    public func setBudget(of member: UUID, _ fields: [String: JSONValue]) async throws(FamilySyncError) -> RecordBody {
        guard case .string(let id)? = fields["budgetID"] else { throw .badRequest("A budget needs its budgetID.", field: "budgetID") }
        return try await replace(Budget.recordName(id), type: RecordTypeName.budget, fields: fields, in: Member.zoneName(of: member))
    }

    /// Deletes a member's budget (`NOT_FOUND` for none of that id); its alerts stay.
    public func deleteBudget(_ id: String, of member: UUID) async throws(FamilySyncError) {
        _ = try await modify(Member.zoneName(of: member), ModifyRecordsRequest(operations: [RecordOperation(
            operationType: .forceDelete, record: RecordInput(recordName: Budget.recordName(id), recordType: RecordTypeName.budget)
        )]))
    }

    /// §11: writes a member's `Schedule` record (`schedule-<scheduleID>`), replacing one of that id.
    public func setSchedule(of member: UUID, _ fields: [String: JSONValue]) async throws(FamilySyncError) -> RecordBody {
        guard case .string(let id)? = fields["scheduleID"] else { throw .badRequest("A schedule needs its scheduleID.", field: "scheduleID") }
        return try await replace(Schedule.recordName(id), type: RecordTypeName.schedule, fields: fields, in: Member.zoneName(of: member))
    }

    /// The member's `Schedule` records, as stored.
    public func schedules(of member: UUID) async throws(FamilySyncError) -> [Schedule] {
        let page = try await query(Member.zoneName(of: member), QueryRecordsRequest(recordType: RecordTypeName.schedule, resultsLimit: 200))
        return page.records.compactMap { $0.fields.flatMap(Schedule.init(fields:)) }
    }

    /// Deletes a member's schedule (`NOT_FOUND` for none of that id).
    public func deleteSchedule(_ id: String, of member: UUID) async throws(FamilySyncError) {
        _ = try await modify(Member.zoneName(of: member), ModifyRecordsRequest(operations: [RecordOperation(
            operationType: .forceDelete, record: RecordInput(recordName: Schedule.recordName(id), recordType: RecordTypeName.schedule)
        )]))
    }

    /// §11: writes a member's `ShieldConfiguration` record (`shield-<shieldConfigurationID>`).
    public func setShieldConfiguration(of member: UUID, _ fields: [String: JSONValue]) async throws(FamilySyncError) -> RecordBody {
        guard case .string(let id)? = fields["shieldConfigurationID"] else {
            throw .badRequest("A shield configuration needs its shieldConfigurationID.", field: "shieldConfigurationID")
        }
        return try await replace(ShieldConfigurationFields.recordName(id), type: RecordTypeName.shieldConfiguration, fields: fields, in: Member.zoneName(of: member))
    }

    /// §11, the child's own app list: a tracked device writes an `AppConfiguration` into its own
    /// zone (`Device.zoneName`, as `me()` answers it), `create` without a change tag, else `replace`
    /// from that tag, stamped with this device's clock. A parent's newer write (or one at the same
    /// instant: the parent wins ties) comes back as `.conflict` with the parent's record.
    public func saveAppConfiguration(
        _ fields: [String: JSONValue], named recordName: String, changeTag: String? = nil, in zone: String, at clientModifiedAt: Date = Date()
    ) async throws(FamilySyncError) -> RecordSaveOutcome {
        let operation = RecordOperation(
            operationType: changeTag == nil ? .create : .replace,
            record: RecordInput(recordName: recordName, recordType: RecordTypeName.appConfiguration, fields: fields, recordChangeTag: changeTag, clientModifiedAt: clientModifiedAt)
        )
        guard let outcome = try await save([operation], in: zone).first else { throw .internalError }
        return outcome
    }

    // MARK: Push (§12)

    /// Registers this device's APNs token (hex, as `didRegisterForRemoteNotificationsWithDeviceToken`
    /// gives it as bytes), its app's bundle id and APNs environment; replaces an earlier one.
    public func registerPush(token: String, topic: String, environment: PushRegistration.Environment = .production) async throws(FamilySyncError) {
        let registration = try PushRegistration.validated(provider: "apns", token: token, topic: topic, environment: environment.rawValue)
        _ = try await send(
            .PUT, "/v1/devices/me/push",
            body: PushRegistrationRequest(provider: registration.provider.rawValue, token: registration.token, topic: registration.topic, environment: environment.rawValue),
            as: EmptyResponse.self
        )
    }

    /// The same, from the token's bytes.
    public func registerPush(deviceToken: some Sequence<UInt8>, topic: String, environment: PushRegistration.Environment = .production) async throws(FamilySyncError) {
        try await registerPush(token: deviceToken.map { String(format: "%02x", $0) }.joined(), topic: topic, environment: environment)
    }

    /// No more pushes to this device (signing out, or notifications turned off).
    public func unregisterPush() async throws(FamilySyncError) {
        _ = try await send(.DELETE, "/v1/devices/me/push", as: EmptyResponse.self)
    }

    /// One record written with `forceReplace`, as saved.
    func replace(_ name: String, type: String, fields: [String: JSONValue], in zone: String) async throws(FamilySyncError) -> RecordBody {
        let response = try await modify(zone, ModifyRecordsRequest(operations: [RecordOperation(
            operationType: .forceReplace, record: RecordInput(recordName: name, recordType: type, fields: fields)
        )]))
        // An atomic modify answers a refused write with its error: here, a saved record.
        guard let saved = response.records.first?.record else { throw .internalError }
        return saved
    }

    /// The member's `Budget` records, as stored.
    public func budgets(of member: UUID) async throws(FamilySyncError) -> [Budget] {
        let page = try await query(Member.zoneName(of: member), QueryRecordsRequest(recordType: RecordTypeName.budget, resultsLimit: 200))
        return page.records.compactMap { $0.fields.flatMap(Budget.init(fields:)) }
    }

    /// `GET /v1/members/{id}/budget-status`: each enabled budget against the member's day.
    public func budgetStatus(of member: UUID, date: String) async throws(FamilySyncError) -> BudgetStatusResponse {
        try await send(.GET, "/v1/members/\(member.lowercased)/budget-status", query: [("date", date)], as: BudgetStatusResponse.self)
    }

    /// `GET /v1/members/{id}/alerts`: newest first.
    public func alerts(of member: UUID, from: String, to: String, includeDismissed: Bool = false) async throws(FamilySyncError) -> [AlertBody] {
        try await send(
            .GET, "/v1/members/\(member.lowercased)/alerts", query: [("from", from), ("to", to), ("includeDismissed", includeDismissed ? "true" : nil)],
            as: AlertList.self
        ).alerts
    }

    /// `POST /v1/alerts/{id}/dismiss` (parents; idempotent).
    public func dismissAlert(_ id: UUID) async throws(FamilySyncError) -> AlertBody {
        try await send(.POST, "/v1/alerts/\(id.lowercased)/dismiss", body: NoBody(), as: AlertBody.self)
    }

    /// `POST /v1/alerts` (a tracked device): a threshold it watches fired. The same report again
    /// answers the stored alert.
    public func reportAlert(_ report: ReportAlertRequest) async throws(FamilySyncError) -> AlertBody {
        try await send(.POST, "/v1/alerts", body: report, as: AlertBody.self)
    }

    // MARK: Categories (§9.1)

    /// The family's `Category` records (a family's own categories, and renamed built-ins).
    public func categories() async throws(FamilySyncError) -> [[String: JSONValue]] {
        try await query("family", QueryRecordsRequest(recordType: RecordTypeName.category, resultsLimit: 1000)).records.compactMap(\.fields)
    }

    /// Writes a `Category` record (parents): a family's own `x-…` category, or a built-in's name,
    /// icon and default (never its kind).
    public func setCategory(_ fields: [String: JSONValue]) async throws(FamilySyncError) -> RecordBody {
        guard case .string(let text)? = fields["id"], let id = CategoryID(rawValue: text) else {
            throw .badRequest("A category needs a valid id.", field: "id")
        }
        let response = try await modify("family", ModifyRecordsRequest(operations: [RecordOperation(
            operationType: .forceReplace, record: RecordInput(recordName: CategoryFields.recordName(id), recordType: RecordTypeName.category, fields: fields)
        )]))
        guard let saved = response.records.first?.record else { throw .internalError }
        return saved
    }
}
