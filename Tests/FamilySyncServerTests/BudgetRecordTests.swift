import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// `Budget` (§9.3, a member's zone) and `Category` (§9.1, the family zone) records through
/// `records/modify`: parents write them; bad ones are refused naming the member and change nothing.
@Suite struct BudgetRecordTests {
    static func write(_ type: String, _ name: String, _ fields: String) -> String { TestServer.forceReplace(type, name, fields) }

    static let budget = #"{"budgetID":"social","category":"social_media","period":"monthly","monthlyHours":30,"alertAtPercent":[80,100],"enabled":true}"#

    @Test func aParentWritesABudgetIntoAMembersZoneAndTheMemberReadsIt() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = Member.zoneName(of: try await server.memberID(of: child))
            let reply = try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: Self.write("Budget", "budget-social", Self.budget))
            #expect(reply.status == .ok, "\(String(buffer: reply.body))")
            let read = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: child.credential).decode(ZoneChangesResponse.self)
            #expect(read.records.map(\.recordType) == ["Budget"])
            let category = try await server.send(.post, "/v1/zones/family/records/modify", credential: parent.credential, json: Self.write(
                "Category", "category-x-chores", #"{"id":"x-chores","displayName":"Chores","kind":"learning","defaultDailyMinutes":30}"#
            ))
            #expect(category.status == .ok, "\(String(buffer: category.body))")
        }
    }

    struct Bad: Sendable, CustomStringConvertible {
        var description: String
        var zone: @Sendable (_ member: String, _ child: String) -> String
        var body: String
        var asChild = false
        var status: HTTPResponse.Status
        var field: String?
    }

    static let bad: [Bad] = [
        Bad(description: "a child writing a Budget", zone: { member, _ in member }, body: write("Budget", "budget-social", budget), asChild: true, status: .forbidden),
        Bad(description: "monthly hours out of range", zone: { member, _ in member }, body: write("Budget", "budget-social", budget.replacingOccurrences(of: "30", with: "745")), status: .badRequest, field: "operations[0].record.fields.monthlyHours"),
        Bad(
            description: "a weekday map with bad keys", zone: { member, _ in member },
            body: write("Budget", "budget-d", #"{"budgetID":"d","category":"*","period":"daily","dailyMinutes":60,"weekdayMinutes":{"funday":10},"enabled":true}"#),
            status: .badRequest, field: "operations[0].record.fields.weekdayMinutes"
        ),
        Bad(description: "an unknown category", zone: { member, _ in member }, body: write("Budget", "budget-social", budget.replacingOccurrences(of: "social_media", with: "games")), status: .badRequest, field: "operations[0].record.fields.category"),
        Bad(
            description: "a family's own category without its record", zone: { member, _ in member },
            body: write("Budget", "budget-social", budget.replacingOccurrences(of: "social_media", with: "x-unknown")), status: .badRequest, field: "operations[0].record.fields.category"
        ),
        Bad(description: "a budget in a device's zone", zone: { _, child in child }, body: write("Budget", "budget-social", budget), status: .badRequest, field: "operations[0].record.recordType"),
        Bad(description: "a budget named after another id", zone: { member, _ in member }, body: write("Budget", "budget-other", budget), status: .badRequest, field: "operations[0].record.fields.budgetID"),
        Bad(
            description: "a built-in category's kind changed", zone: { _, _ in "family" },
            body: write("Category", "category-gaming", #"{"id":"gaming","displayName":"Games","kind":"reward"}"#), status: .badRequest, field: "operations[0].record.fields.kind"
        ),
        Bad(
            description: "a category in a member's zone", zone: { member, _ in member },
            body: write("Category", "category-x-chores", #"{"id":"x-chores","displayName":"Chores","kind":"learning"}"#), status: .badRequest, field: "operations[0].record.recordType"
        ),
    ]

    @Test(arguments: bad)
    func isRefusedAndChangesNothing(_ bad: Bad) async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let member = Member.zoneName(of: try await server.memberID(of: child))
            let before = try await server.fingerprint()
            let reply = try await server.send(
                .post, "/v1/zones/\(bad.zone(member, Device.zoneName(forChild: child.deviceID)))/records/modify",
                credential: bad.asChild ? child.credential : parent.credential, json: bad.body
            )
            #expect(reply.status == bad.status, "\(String(buffer: reply.body))")
            if let field = bad.field { #expect(reply.error?.field == field, "\(String(buffer: reply.body))") }
            #expect(try await server.fingerprint() == before)
        }
    }

    /// PROTOCOL §14: 100 budgets a member; the 101st is refused and changes nothing.
    @Test func aMemberHasAtMostAHundredBudgets() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = Member.zoneName(of: try await server.memberID(of: child))
            func operation(_ index: Int) -> String {
                #"{"operationType":"create","record":{"recordName":"budget-b\#(index)","recordType":"Budget","fields":{"budgetID":"b\#(index)","category":"gaming","period":"daily","dailyMinutes":60,"enabled":true}}}"#
            }
            let hundred = #"{"operations":[\#((0..<100).map(operation).joined(separator: ","))]}"#
            #expect(try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: hundred).status == .ok)
            let before = try await server.fingerprint()
            let more = try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: #"{"operations":[\#(operation(100))]}"#)
            #expect(more.status == .contentTooLarge && more.errorCode == "LIMIT_EXCEEDED", "\(String(buffer: more.body))")
            #expect(try await server.fingerprint() == before)
        }
    }
}
