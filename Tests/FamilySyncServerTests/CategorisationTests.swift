import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// PROTOCOL §9.1 over HTTP: the server categorises what a device does not, a family's own
/// categories count as their kind, and an unknown one is refused without a change.
@Suite struct CategorisationTests {
    static func record(_ server: TestServer, id: UUID = UUID(), app: String, bundle: String? = nil, category: String? = nil, minutes: Int = 10) -> String {
        let end = server.clock.now().addingTimeInterval(-3600)
        let start = end.addingTimeInterval(TimeInterval(-minutes * 60))
        let bundleMember = bundle.map { #""bundleIdentifier":"\#($0)","# } ?? ""
        let categoryMember = category.map { #""category":"\#($0)","# } ?? ""
        return #"{"recordID":"\#(id.lowercased)","logicalID":"\#(app)","displayName":"\#(app)",\#(bundleMember)\#(categoryMember)"sessionStart":"\#(Instant.format(start))","sessionEnd":"\#(Instant.format(end))","totalSeconds":\#(minutes * 60)}"#
    }

    static func upload(_ server: TestServer, _ device: TestDevice, _ records: [String]) async throws -> TestServer.Reply {
        try await server.send(.post, "/v1/usage", credential: device.credential, json: #"{"timeZone":"UTC","records":[\#(records.joined(separator: ","))]}"#)
    }

    static func storedCategory(_ server: TestServer, _ parent: TestDevice, _ child: TestDevice, _ id: UUID) async throws -> String? {
        let zone = Device.zoneName(forChild: child.deviceID)
        let found = try await server.send(.post, "/v1/zones/\(zone)/records/lookup", credential: parent.credential, json: #"{"recordNames":["usage-\#(id.lowercased)"]}"#)
        let record = try found.decode(LookupRecordsResponse.self).records.first?.record
        if case .string(let category)? = record?.fields?["category"] { return category }
        return nil
    }

    @Test func theServerCategorisesByConfigurationThenBundleThenOther() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            // The parent configured "ig" as reward on this device.
            let config = try await server.send(.post, "/v1/zones/\(Device.zoneName(forChild: child.deviceID))/records/modify", credential: parent.credential, json: """
                {"operations":[{"operationType":"create","record":{"recordName":"config-ig","recordType":"AppConfiguration",
                 "fields":{"logicalID":"ig","displayName":"Instagram","category":"reward","isEnabled":true,"blockingEnabled":false}}}]}
                """)
            #expect(config.status == .ok, "\(String(buffer: config.body))")
            let (configured, bundled, unknown, named) = (UUID(), UUID(), UUID(), UUID())
            let reply = try await Self.upload(server, child, [
                Self.record(server, id: configured, app: "ig", bundle: "com.burbn.instagram"),
                Self.record(server, id: bundled, app: "insta", bundle: "com.burbn.instagram"),
                Self.record(server, id: unknown, app: "thing", bundle: "org.example.thing"),
                Self.record(server, id: named, app: "tube", bundle: "com.google.ios.youtube", category: "learning"),
            ])
            #expect(reply.status == .ok, "\(String(buffer: reply.body))")
            #expect(try await Self.storedCategory(server, parent, child, configured) == "reward")
            #expect(try await Self.storedCategory(server, parent, child, bundled) == "social_media")
            #expect(try await Self.storedCategory(server, parent, child, unknown) == "other")
            #expect(try await Self.storedCategory(server, parent, child, named) == "learning")
            let summary = try #require(try reply.decode(UsageUploadResponse.self).summaries.first)
            #expect(Set(summary.byCategory.map(\.category)) == ["reward", "social_media", "other", "learning"])

            // The parent re-assigns "ig"; the same record re-sent without a category is a
            // duplicate, as stored, not a conflict.
            let reassigned = try await server.send(.post, "/v1/zones/\(Device.zoneName(forChild: child.deviceID))/records/modify", credential: parent.credential, json: """
                {"operations":[{"operationType":"forceReplace","record":{"recordName":"config-ig","recordType":"AppConfiguration",
                 "fields":{"logicalID":"ig","displayName":"Instagram","category":"social_media","isEnabled":true,"blockingEnabled":false}}}]}
                """)
            #expect(reassigned.status == .ok, "\(String(buffer: reassigned.body))")
            let again = try await Self.upload(server, child, [Self.record(server, id: configured, app: "ig", bundle: "com.burbn.instagram")])
            #expect(again.status == .ok, "\(String(buffer: again.body))")
            #expect(try again.decode(UsageUploadResponse.self).duplicates == 1)
            #expect(try await Self.storedCategory(server, parent, child, configured) == "reward")
        }
    }

    @Test func aFamilysOwnCategoryNeedsItsRecordAndCountsAsItsKind() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let before = try await server.fingerprint()
            let refused = try await Self.upload(server, child, [Self.record(server, app: "broom", category: "x-chores")])
            #expect(refused.status == .badRequest && refused.error?.field == "records[0].category", "\(String(buffer: refused.body))")
            #expect(try await server.fingerprint() == before)
            let defined = try await server.send(.post, "/v1/zones/family/records/modify", credential: parent.credential, json: """
                {"operations":[{"operationType":"create","record":{"recordName":"category-x-chores","recordType":"Category","fields":{"id":"x-chores","displayName":"Chores","kind":"learning"}}}]}
                """)
            #expect(defined.status == .ok, "\(String(buffer: defined.body))")
            let accepted = try await Self.upload(server, child, [Self.record(server, app: "broom", category: "x-chores", minutes: 20)])
            #expect(accepted.status == .ok, "\(String(buffer: accepted.body))")
            let summary = try #require(try accepted.decode(UsageUploadResponse.self).summaries.first)
            #expect(summary.totalLearningSeconds == 1200 && summary.byCategory.map(\.category) == ["x-chores"])
        }
    }

    /// An app configured in a family's own category: refused until the category has its record,
    /// through records/modify and through a command's configuration; then the usage of that app
    /// sent without a category takes it.
    @Test func aConfigurationNamesAFamilysOwnCategoryOnceItExists() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = Device.zoneName(forChild: child.deviceID)
            let write = """
                {"operations":[{"operationType":"create","record":{"recordName":"config-broom","recordType":"AppConfiguration",
                 "fields":{"logicalID":"broom","displayName":"Broom","category":"x-chores","isEnabled":true,"blockingEnabled":false}}}]}
                """
            let before = try await server.fingerprint()
            let refused = try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: write)
            #expect(refused.status == .badRequest && refused.error?.field == "operations[0].record.fields.category", "\(String(buffer: refused.body))")
            let command = try await server.send(.post, "/v1/devices/\(child.deviceID.lowercased)/commands", credential: parent.credential, json: """
                {"commandType":"update_config","configuration":[{"logicalID":"broom","displayName":"Broom","category":"x-chores","isEnabled":true,"blockingEnabled":false}]}
                """)
            #expect(command.status == .badRequest && command.error?.field == "configuration[0].category", "\(String(buffer: command.body))")
            #expect(try await server.fingerprint() == before)

            #expect(try await server.send(.post, "/v1/zones/family/records/modify", credential: parent.credential, json: """
                {"operations":[{"operationType":"create","record":{"recordName":"category-x-chores","recordType":"Category","fields":{"id":"x-chores","displayName":"Chores","kind":"learning"}}}]}
                """).status == .ok)
            #expect(try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: write).status == .ok)
            let id = UUID()
            #expect(try await Self.upload(server, child, [Self.record(server, id: id, app: "broom")]).status == .ok)
            #expect(try await Self.storedCategory(server, parent, child, id) == "x-chores")
        }
    }

    /// A budget, a schedule and a threshold alert that name a family's own category: each refused
    /// naming its member until the category has its record, then accepted.
    @Test func budgetsSchedulesAndAlertsNameAFamilysOwnCategoryOnceItExists() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = Member.zoneName(of: try await server.memberID(of: child))
            let budget = BudgetRecordTests.write("Budget", "budget-chores", #"{"budgetID":"chores","category":"x-chores","period":"daily","dailyMinutes":30,"enabled":true}"#)
            let schedule = BudgetRecordTests.write("Schedule", "schedule-bedtime", ScheduleRecordTests.schedule.replacingOccurrences(of: #""gaming""#, with: #""x-chores""#))
            let alert = ThresholdAlertTests.body(UUID(), category: "x-chores")
            func send() async throws -> [TestServer.Reply] {
                [
                    try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: budget),
                    try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: schedule),
                    try await server.send(.post, "/v1/alerts", credential: child.credential, json: alert),
                ]
            }
            let before = try await server.fingerprint()
            let refused = try await send()
            #expect(refused.map(\.status) == [.badRequest, .badRequest, .badRequest], "\(refused.map { String(buffer: $0.body) })")
            #expect(refused.map(\.error?.field) == ["operations[0].record.fields.category", "operations[0].record.fields.categories[0]", "category"])
            #expect(try await server.fingerprint() == before)

            #expect(try await server.send(.post, "/v1/zones/family/records/modify", credential: parent.credential, json: """
                {"operations":[{"operationType":"create","record":{"recordName":"category-x-chores","recordType":"Category","fields":{"id":"x-chores","displayName":"Chores","kind":"learning"}}}]}
                """).status == .ok)
            let accepted = try await send()
            #expect(accepted.map(\.status) == [.ok, .ok, .created], "\(accepted.map { String(buffer: $0.body) })")
        }
    }
}
