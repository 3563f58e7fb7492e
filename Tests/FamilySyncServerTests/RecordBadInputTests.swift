import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// The bad inputs of the record-zone engine: each gets its documented error and changes nothing.
@Suite struct RecordBadInputTests {
    struct Setup: Sendable {
        var fixture: FamilyFixture
        var zone: String
        /// Tokens to misuse.
        var parentFamilyZoneToken: String
        var parentChildZoneToken: String
        var childChildZoneToken: String
        var otherFamilyZoneToken: String
        var appTag: String
    }

    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var method: HTTPRequest.Method
        var uri: @Sendable (Setup) -> String
        var asChild = false
        var asOtherFamily = false
        var json: (@Sendable (Setup) -> String)? = nil
        var status: HTTPResponse.Status
        var code: String
        var field: String? = nil
    }

    static func op(_ type: String, _ name: String, tag: String? = nil, fields: String? = RecordZoneTests.appConfiguration("a")) -> String {
        let tagPart = tag.map { #","recordChangeTag":"\#($0)""# } ?? ""
        let fieldsPart = fields.map { #","fields":\#($0)"# } ?? ""
        return #"{"operationType":"\#(type)","record":{"recordName":"\#(name)","recordType":"AppConfiguration"\#(tagPart)\#(fieldsPart)}}"#
    }

    static func ops(_ operations: [String]) -> String { #"{"operations":[\#(operations.joined(separator: ","))]}"# }

    static let cases: [Case] = [
        Case(description: "a token of another zone", method: .get, uri: { "/v1/zones/\($0.zone)/changes?since=\($0.parentFamilyZoneToken)" }, status: .badRequest, code: "BAD_CHANGE_TOKEN"),
        Case(description: "a token of another device", method: .get, uri: { "/v1/zones/\($0.zone)/changes?since=\($0.childChildZoneToken)" }, status: .badRequest, code: "BAD_CHANGE_TOKEN"),
        Case(description: "a token of another family", method: .get, uri: { "/v1/zones/\($0.zone)/changes?since=\($0.otherFamilyZoneToken)" }, status: .badRequest, code: "BAD_CHANGE_TOKEN"),
        Case(description: "a token altered by one byte", method: .get, uri: { setup in
            var token = Array(setup.parentChildZoneToken)
            token[token.count / 2] = token[token.count / 2] == "A" ? "B" : "A"
            return "/v1/zones/\(setup.zone)/changes?since=\(String(token))"
        }, status: .badRequest, code: "BAD_CHANGE_TOKEN", field: "since"),
        Case(description: "a zone token for database changes", method: .get, uri: { "/v1/changes?since=\($0.parentChildZoneToken)" }, status: .badRequest, code: "BAD_CHANGE_TOKEN"),
        Case(description: "limit 0", method: .get, uri: { "/v1/zones/\($0.zone)/changes?limit=0" }, status: .badRequest, code: "BAD_REQUEST", field: "limit"),
        Case(description: "limit 1001", method: .get, uri: { "/v1/zones/\($0.zone)/changes?limit=1001" }, status: .badRequest, code: "BAD_REQUEST", field: "limit"),
        Case(description: "a format not known", method: .get, uri: { "/v1/zones/\($0.zone)/changes?format=tiny" }, status: .badRequest, code: "BAD_REQUEST", field: "format"),
        Case(description: "a format in capitals", method: .get, uri: { "/v1/zones/\($0.zone)/changes?format=COMPACT" }, status: .badRequest, code: "BAD_REQUEST", field: "format"),
        Case(description: "an empty format", method: .get, uri: { "/v1/zones/\($0.zone)/changes?format=" }, status: .badRequest, code: "BAD_REQUEST", field: "format"),
        Case(description: "an unknown zone", method: .get, uri: { _ in "/v1/zones/nowhere/changes" }, status: .notFound, code: "ZONE_NOT_FOUND"),
        Case(description: "another family's zone", method: .get, uri: { "/v1/zones/child-\($0.fixture.child.deviceID.lowercased)/changes" }, asOtherFamily: true, status: .notFound, code: "ZONE_NOT_FOUND"),
        Case(description: "another family's zone, written", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, asOtherFamily: true, json: { _ in ops([op("create", "intruder")]) }, status: .notFound, code: "ZONE_NOT_FOUND"),
        Case(description: "a malformed zone name", method: .get, uri: { _ in "/v1/zones/Not%20A%20Zone/changes" }, status: .badRequest, code: "BAD_REQUEST", field: "zone"),
        Case(description: "401 operations", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in ops((0...400).map { op("create", "r\($0)") }) }, status: .contentTooLarge, code: "LIMIT_EXCEEDED", field: "operations"),
        Case(description: "a record over 256 KiB", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in
            ops([#"{"operationType":"create","record":{"recordName":"big","recordType":"x-blob","fields":{"data":"\#(String(repeating: "x", count: 300_000))"}}}"#])
        }, status: .contentTooLarge, code: "LIMIT_EXCEEDED", field: "operations[0].record.fields"),
        Case(description: "the same record twice", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in ops([op("create", "twin"), op("forceUpdate", "twin")]) }, status: .badRequest, code: "BAD_REQUEST", field: "operations[1].record.recordName"),
        Case(description: "a field of the wrong type", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in
            ops([op("create", "typed", fields: #"{"logicalID":"a","displayName":"A","category":"learning","isEnabled":true,"blockingEnabled":false,"pointsPerMinute":"five"}"#)])
        }, status: .badRequest, code: "BAD_REQUEST", field: "operations[0].record.fields.pointsPerMinute"),
        Case(description: "a missing required field", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in
            ops([op("create", "partial", fields: #"{"logicalID":"a","displayName":"A","category":"learning","isEnabled":true}"#)])
        }, status: .badRequest, code: "BAD_REQUEST", field: "operations[0].record.fields.blockingEnabled"),
        Case(description: "an unknown field of a known type", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in
            ops([op("create", "extra", fields: #"{"logicalID":"a","displayName":"A","category":"learning","isEnabled":true,"blockingEnabled":false,"color":"red"}"#)])
        }, status: .badRequest, code: "BAD_REQUEST", field: "operations[0].record.fields.color"),
        // A child publishes its own app list (§11), but neither deletes nor forces past §5.4.
        Case(description: "a child deleting AppConfiguration", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, asChild: true, json: { ops([op("delete", "app-1", tag: $0.appTag, fields: nil)]) }, status: .forbidden, code: "ACCESS_DENIED"),
        Case(description: "a child force-updating AppConfiguration", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, asChild: true, json: { _ in ops([op("forceUpdate", "app-1", fields: #"{"blockingEnabled":false}"#)]) }, status: .forbidden, code: "ACCESS_DENIED"),
        Case(description: "a child writing DeviceSettings in its zone", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, asChild: true, json: { _ in ops([#"{"operationType":"create","record":{"recordName":"s","recordType":"DeviceSettings","fields":{}}}"#]) }, status: .forbidden, code: "ACCESS_DENIED"),
        Case(description: "a child writing AppConfiguration of a sibling's zone", method: .post, uri: { "/v1/zones/child-\($0.fixture.sibling.deviceID.lowercased)/records/modify" }, asChild: true, json: { _ in ops([op("create", "mine")]) }, status: .notFound, code: "ZONE_NOT_FOUND"),
        Case(description: "a parent writing the parent-pin record", method: .post, uri: { "/v1/zones/member-\($0.fixture.childMemberID.lowercased)/records/modify" }, json: { _ in ops([#"{"operationType":"forceUpdate","record":{"recordName":"parent-pin","recordType":"DeviceSettings","fields":{"hash":"x"}}}"#]) }, status: .forbidden, code: "ACCESS_DENIED"),
        Case(description: "a child writing the family zone", method: .post, uri: { _ in "/v1/zones/family/records/modify" }, asChild: true, json: { _ in ops([#"{"operationType":"create","record":{"recordName":"s","recordType":"DeviceSettings","fields":{}}}"#]) }, status: .forbidden, code: "ACCESS_DENIED"),
        Case(description: "a parent writing usage through modify", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in ops([#"{"operationType":"create","record":{"recordName":"u","recordType":"UsageRecord","fields":{}}}"#]) }, status: .forbidden, code: "ACCESS_DENIED"),
        Case(description: "an unknown record type", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in ops([#"{"operationType":"create","record":{"recordName":"u","recordType":"Mystery","fields":{}}}"#]) }, status: .badRequest, code: "BAD_REQUEST", field: "operations[0].record.recordType"),
        Case(description: "AppConfiguration in the family zone", method: .post, uri: { _ in "/v1/zones/family/records/modify" }, json: { _ in ops([op("create", "a")]) }, status: .badRequest, code: "BAD_REQUEST", field: "operations[0].record.recordType"),
        Case(description: "delete of a record that does not exist", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in ops([op("delete", "ghost", tag: "1", fields: nil)]) }, status: .notFound, code: "NOT_FOUND"),
        Case(description: "forceDelete of a record that does not exist", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in ops([op("forceDelete", "ghost", fields: nil)]) }, status: .notFound, code: "NOT_FOUND"),
        Case(description: "update without a change tag", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in ops([op("update", "app-1", fields: #"{"isEnabled":false}"#)]) }, status: .badRequest, code: "BAD_REQUEST", field: "operations[0].record.recordChangeTag"),
        Case(description: "create of a record that exists", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in ops([op("create", "app-1")]) }, status: .conflict, code: "EXISTS"),
        Case(description: "a stale tag on a custom type", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in ops([#"{"operationType":"update","record":{"recordName":"note","recordChangeTag":"stale","fields":{"a":2},"clientModifiedAt":"2030-01-01T00:00:00Z"}}"#]) }, status: .conflict, code: "CONFLICT"),
        Case(description: "an unknown operation type", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in ops([#"{"operationType":"upsert","record":{"recordName":"x"}}"#]) }, status: .badRequest, code: "BAD_REQUEST", field: "operations[0].operationType"),
        Case(description: "a malformed record name", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in ops([op("create", "has space")]) }, status: .badRequest, code: "BAD_REQUEST", field: "operations[0].record.recordName"),
        Case(description: "no operations", method: .post, uri: { "/v1/zones/\($0.zone)/records/modify" }, json: { _ in ops([]) }, status: .badRequest, code: "BAD_REQUEST", field: "operations"),
        Case(description: "a zone named child-", method: .post, uri: { _ in "/v1/zones" }, json: { _ in #"{"zoneName":"child-mine"}"# }, status: .badRequest, code: "BAD_REQUEST", field: "zoneName"),
        Case(description: "a zone that exists", method: .post, uri: { _ in "/v1/zones" }, json: { _ in #"{"zoneName":"family"}"# }, status: .conflict, code: "EXISTS"),
        Case(description: "deleting the family zone", method: .delete, uri: { _ in "/v1/zones/family" }, status: .conflict, code: "CONFLICT"),
        Case(description: "deleting an active child's zone", method: .delete, uri: { "/v1/zones/\($0.zone)" }, status: .conflict, code: "CONFLICT"),
        Case(description: "a child creating a zone", method: .post, uri: { _ in "/v1/zones" }, asChild: true, json: { _ in #"{"zoneName":"mine"}"# }, status: .forbidden, code: "ACCESS_DENIED"),
    ]

    static func setUp(_ server: TestServer) async throws -> Setup {
        let fixture = try await FamilyFixture.make(server)
        let zone = "child-\(fixture.child.deviceID.lowercased)"
        let created = try await RecordZoneTests.modify(server, fixture.parent, zone: zone, [
            op("create", "app-1"), #"{"operationType":"create","record":{"recordName":"note","recordType":"x-note","fields":{"a":1}}}"#,
        ])
        let tag = try created.decode(ModifyRecordsResponse.self).records[0].record?.recordChangeTag ?? ""
        func token(_ device: TestDevice, _ zone: String) async throws -> String {
            try await server.send(.get, "/v1/zones/\(zone)/changes", credential: device.credential).decode(ZoneChangesResponse.self).changeToken
        }
        let other = try await server.send(.get, "/v1/zones/family/changes", credential: fixture.otherParent.credential).decode(ZoneChangesResponse.self).changeToken
        return Setup(
            fixture: fixture, zone: zone, parentFamilyZoneToken: try await token(fixture.parent, "family"),
            parentChildZoneToken: try await token(fixture.parent, zone), childChildZoneToken: try await token(fixture.child, zone),
            otherFamilyZoneToken: other, appTag: tag
        )
    }

    @Test(arguments: cases)
    func isRefusedAndChangesNothing(_ testCase: Case) async throws {
        try await withTestServer { server in
            let setup = try await Self.setUp(server)
            let credential = testCase.asOtherFamily ? setup.fixture.otherParent.credential
                : testCase.asChild ? setup.fixture.child.credential : setup.fixture.parent.credential
            _ = try await server.send(.get, "/v1/devices/me", credential: credential)
            let before = try await server.fingerprint()
            let reply = try await server.send(testCase.method, testCase.uri(setup), credential: credential, json: testCase.json?(setup))
            #expect(reply.status == testCase.status, "\(String(buffer: reply.body).prefix(300))")
            #expect(reply.errorCode == testCase.code)
            if let field = testCase.field { #expect(reply.error?.field == field) }
            #expect(try await server.fingerprint() == before)
        }
    }
}
