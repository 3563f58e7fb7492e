import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// `Schedule` and `ShieldConfiguration` records (§11, a member's zone) through `records/modify`:
/// parents write them, the member's devices read them; bad ones are refused naming the member and
/// change nothing.
@Suite struct ScheduleRecordTests {
    static let schedule = TestServer.bedtimeSchedule
    static let shield = ##"{"shieldConfigurationID":"night","title":"Time to sleep","subtitle":"Back at 7","primaryButtonLabel":"OK","backgroundBlurStyle":"dark","backgroundColor":"#101820","titleColor":"#FFFFFFCC"}"##

    @Test func aParentWritesASchedulesAndAShieldAndTheMemberReadsThem() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = Member.zoneName(of: try await server.memberID(of: child))
            for (type, name, fields) in [("Schedule", "schedule-bedtime", Self.schedule), ("ShieldConfiguration", "shield-night", Self.shield)] {
                let reply = try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: BudgetRecordTests.write(type, name, fields))
                #expect(reply.status == .ok, "\(String(buffer: reply.body))")
            }
            let read = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: child.credential).decode(ZoneChangesResponse.self)
            #expect(Set(read.records.map(\.recordType)) == ["Schedule", "ShieldConfiguration"])
        }
    }

    static let bad: [BudgetRecordTests.Bad] = [
        .init(description: "a child writing a Schedule", zone: { member, _ in member }, body: BudgetRecordTests.write("Schedule", "schedule-bedtime", schedule), asChild: true, status: .forbidden),
        .init(
            description: "start = end", zone: { member, _ in member },
            body: BudgetRecordTests.write("Schedule", "schedule-bedtime", schedule.replacingOccurrences(of: #""hour":7"#, with: #""hour":21"#)),
            status: .badRequest, field: "operations[0].record.fields.intervalEnd"
        ),
        .init(
            description: "an hour of 24", zone: { member, _ in member },
            body: BudgetRecordTests.write("Schedule", "schedule-bedtime", schedule.replacingOccurrences(of: #""hour":21"#, with: #""hour":24"#)),
            status: .badRequest, field: "operations[0].record.fields.intervalStart"
        ),
        .init(
            description: "a weekday of 8", zone: { member, _ in member },
            body: BudgetRecordTests.write("Schedule", "schedule-bedtime", schedule.replacingOccurrences(of: #""mode""#, with: #""weekdays":[1,8],"mode""#)),
            status: .badRequest, field: "operations[0].record.fields.weekdays"
        ),
        .init(
            description: "an unknown category", zone: { member, _ in member },
            body: BudgetRecordTests.write("Schedule", "schedule-bedtime", schedule.replacingOccurrences(of: #""gaming""#, with: #""games""#)),
            status: .badRequest, field: "operations[0].record.fields.categories"
        ),
        .init(
            description: "a family's own category without its record", zone: { member, _ in member },
            body: BudgetRecordTests.write("Schedule", "schedule-bedtime", schedule.replacingOccurrences(of: #""gaming""#, with: #""gaming","x-unknown""#)),
            status: .badRequest, field: "operations[0].record.fields.categories[1]"
        ),
        .init(description: "a schedule in a device's zone", zone: { _, child in child }, body: BudgetRecordTests.write("Schedule", "schedule-bedtime", schedule), status: .badRequest, field: "operations[0].record.recordType"),
        .init(description: "a schedule named after another id", zone: { member, _ in member }, body: BudgetRecordTests.write("Schedule", "schedule-other", schedule), status: .badRequest, field: "operations[0].record.fields.scheduleID"),
        .init(
            description: "a colour that is not #RRGGBB", zone: { member, _ in member },
            body: BudgetRecordTests.write("ShieldConfiguration", "shield-night", shield.replacingOccurrences(of: "#101820", with: "navy")),
            status: .badRequest, field: "operations[0].record.fields.backgroundColor"
        ),
        .init(
            description: "an unknown blur style", zone: { member, _ in member },
            body: BudgetRecordTests.write("ShieldConfiguration", "shield-night", shield.replacingOccurrences(of: #""dark""#, with: #""frosted""#)),
            status: .badRequest, field: "operations[0].record.fields.backgroundBlurStyle"
        ),
        .init(
            description: "a shield without its title", zone: { member, _ in member },
            body: BudgetRecordTests.write("ShieldConfiguration", "shield-night", shield.replacingOccurrences(of: #""title":"Time to sleep","#, with: "")),
            status: .badRequest, field: "operations[0].record.fields.title"
        ),
        .init(description: "a child writing a ShieldConfiguration", zone: { member, _ in member }, body: BudgetRecordTests.write("ShieldConfiguration", "shield-night", shield), asChild: true, status: .forbidden),
    ]

    /// PROTOCOL §14: 50 schedules a member; the 51st is refused and changes nothing.
    @Test func aMemberHasAtMostFiftySchedules() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = Member.zoneName(of: try await server.memberID(of: child))
            func operation(_ index: Int) -> String {
                let fields = Self.schedule.replacingOccurrences(of: #""scheduleID":"bedtime""#, with: #""scheduleID":"s\#(index)""#)
                return #"{"operationType":"create","record":{"recordName":"schedule-s\#(index)","recordType":"Schedule","fields":\#(fields)}}"#
            }
            let fifty = #"{"operations":[\#((0..<50).map(operation).joined(separator: ","))]}"#
            let first = try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: fifty)
            #expect(first.status == .ok, "\(String(buffer: first.body).prefix(300))")
            let before = try await server.fingerprint()
            let more = try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: #"{"operations":[\#(operation(50))]}"#)
            #expect(more.status == .contentTooLarge && more.errorCode == "LIMIT_EXCEEDED", "\(String(buffer: more.body))")
            #expect(try await server.fingerprint() == before)
        }
    }

    @Test(arguments: bad)
    func isRefusedAndChangesNothing(_ bad: BudgetRecordTests.Bad) async throws {
        try await BudgetRecordTests().isRefusedAndChangesNothing(bad)
    }
}
