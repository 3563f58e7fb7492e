import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// The bad inputs of configuration commands: each gets its documented error and changes nothing.
@Suite struct CommandBadInputTests {
    enum Caller: Sendable { case parent, child, sibling, otherFamily }

    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var method: HTTPRequest.Method = .post
        var uri: @Sendable (FamilyFixture, String) -> String
        var caller: Caller = .parent
        var json: String? = nil
        var status: HTTPResponse.Status
        var code: String
        var field: String? = nil
        /// Words the error's reason holds: the name to use instead.
        var reason: String? = nil
        /// Done first and not judged: the state the bad request meets.
        var before: Before = .nothing

        enum Before: Sendable { case nothing, cancel }
    }

    static let toChild: @Sendable (FamilyFixture, String) -> String = { fixture, _ in "/v1/devices/\(fixture.child.deviceID.lowercased)/commands" }
    static let result: @Sendable (FamilyFixture, String) -> String = { _, command in "/v1/commands/\(command)/result" }
    static let config = #"{"logicalID":"app-1","displayName":"A","category":"learning","isEnabled":true,"blockingEnabled":false}"#

    static let cases: [Case] = [
        Case(description: "an unknown commandType", uri: toChild, json: #"{"commandType":"reboot"}"#, status: .badRequest, code: "BAD_REQUEST", field: "commandType"),
        Case(description: "no commandType", uri: toChild, json: #"{"payload":{}}"#, status: .badRequest, code: "BAD_REQUEST", field: "commandType"),
        Case(description: "expiresInSeconds 0", uri: toChild, json: #"{"commandType":"block","expiresInSeconds":0}"#, status: .badRequest, code: "BAD_REQUEST", field: "expiresInSeconds"),
        Case(description: "expiresInSeconds over 30 days", uri: toChild, json: #"{"commandType":"block","expiresInSeconds":2592001}"#, status: .badRequest, code: "BAD_REQUEST", field: "expiresInSeconds"),
        Case(description: "expiresInSeconds as text", uri: toChild, json: #"{"commandType":"block","expiresInSeconds":"60"}"#, status: .badRequest, code: "BAD_REQUEST", field: "expiresInSeconds"),
        Case(description: "a payload that is not an object", uri: toChild, json: #"{"commandType":"block","payload":[1]}"#, status: .badRequest, code: "BAD_REQUEST", field: "payload"),
        Case(description: "an unknown member", uri: toChild, json: #"{"commandType":"block","priority":1}"#, status: .badRequest, code: "BAD_REQUEST", field: "priority"),
        Case(description: "a payload over 64 KiB", uri: toChild, json: #"{"commandType":"block","payload":{"x":"\#(String(repeating: "x", count: 70_000))"}}"#, status: .contentTooLarge, code: "LIMIT_EXCEEDED"),
        Case(description: "a block naming its apps as apps", uri: toChild, json: #"{"commandType":"block","payload":{"apps":["app-game"]}}"#, status: .badRequest, code: "BAD_REQUEST", field: "payload.apps", reason: "payload.logicalIDs"),
        Case(description: "an unblock naming its apps as apps", uri: toChild, json: #"{"commandType":"unblock","payload":{"apps":["app-game"]}}"#, status: .badRequest, code: "BAD_REQUEST", field: "payload.apps", reason: "payload.logicalIDs"),
        Case(description: "a block with logicalIDs and another member", uri: toChild, json: #"{"commandType":"block","payload":{"logicalIDs":["app-game"],"until":"tomorrow"}}"#, status: .badRequest, code: "BAD_REQUEST", field: "payload.until", reason: "payload.logicalIDs"),
        Case(description: "a block of no logicalIDs", uri: toChild, json: #"{"commandType":"block","payload":{"logicalIDs":[]}}"#, status: .badRequest, code: "BAD_REQUEST", field: "payload.logicalIDs", reason: "whole device"),
        Case(description: "a block of null logicalIDs", uri: toChild, json: #"{"commandType":"block","payload":{"logicalIDs":null}}"#, status: .badRequest, code: "BAD_REQUEST", field: "payload.logicalIDs"),
        Case(description: "a logicalID of 256 bytes", uri: toChild, json: #"{"commandType":"unblock","payload":{"logicalIDs":["\#(String(repeating: "a", count: 256))"]}}"#, status: .badRequest, code: "BAD_REQUEST", field: "payload.logicalIDs"),
        Case(description: "501 logicalIDs", uri: toChild, json: #"{"commandType":"block","payload":{"logicalIDs":[\#((0...500).map { "\"app-\($0)\"" }.joined(separator: ","))]}}"#, status: .badRequest, code: "BAD_REQUEST", field: "payload.logicalIDs"),
        Case(description: "a configuration without displayName", uri: toChild, json: #"{"commandType":"update_config","configuration":[{"logicalID":"a","category":"learning","isEnabled":true,"blockingEnabled":false}]}"#, status: .badRequest, code: "BAD_REQUEST", field: "configuration[0].displayName"),
        Case(description: "a configuration with an unknown category", uri: toChild, json: #"{"commandType":"update_config","configuration":[{"logicalID":"a","displayName":"A","category":"games","isEnabled":true,"blockingEnabled":false}]}"#, status: .badRequest, code: "BAD_REQUEST", field: "configuration[0].category"),
        Case(description: "one good and one bad configuration", uri: toChild, json: #"{"commandType":"update_config","configuration":[\#(config),{"logicalID":"b","displayName":"B","category":"learning","isEnabled":"yes","blockingEnabled":false}]}"#, status: .badRequest, code: "BAD_REQUEST", field: "configuration[1].isEnabled"),
        Case(description: "the same logicalID twice", uri: toChild, json: #"{"commandType":"update_config","configuration":[\#(config),\#(config)]}"#, status: .badRequest, code: "BAD_REQUEST", field: "configuration[1].logicalID"),
        Case(description: "to a parent device", uri: { fixture, _ in "/v1/devices/\(fixture.parent.deviceID.lowercased)/commands" }, json: #"{"commandType":"block"}"#, status: .notFound, code: "NOT_FOUND"),
        Case(description: "to an unknown device", uri: { _, _ in "/v1/devices/\(UUID().lowercased)/commands" }, json: #"{"commandType":"block"}"#, status: .notFound, code: "NOT_FOUND"),
        Case(description: "to a malformed device id", uri: { _, _ in "/v1/devices/not-a-uuid/commands" }, json: #"{"commandType":"block"}"#, status: .badRequest, code: "BAD_REQUEST", field: "id"),
        Case(description: "to a child awaiting confirmation", uri: { fixture, _ in "/v1/devices/\(fixture.awaiting.deviceID.lowercased)/commands" }, json: #"{"commandType":"block"}"#, status: .conflict, code: "CONFLICT"),
        Case(description: "to a revoked child", uri: { fixture, _ in "/v1/devices/\(fixture.revoked.deviceID.lowercased)/commands" }, json: #"{"commandType":"block"}"#, status: .conflict, code: "CONFLICT"),
        Case(description: "to another family's child", uri: toChild, caller: .otherFamily, json: #"{"commandType":"block"}"#, status: .notFound, code: "NOT_FOUND"),
        Case(description: "a list with an unknown status", method: .get, uri: { fixture, _ in "/v1/devices/\(fixture.child.deviceID.lowercased)/commands?status=done" }, status: .badRequest, code: "BAD_REQUEST", field: "status"),
        Case(description: "a child listing another child's commands", method: .get, uri: toChild, caller: .sibling, status: .forbidden, code: "ACCESS_DENIED"),
        Case(description: "a result with an unknown status", uri: result, caller: .child, json: #"{"status":"done"}"#, status: .badRequest, code: "BAD_REQUEST", field: "status"),
        Case(description: "executed with an error", uri: result, caller: .child, json: #"{"status":"executed","error":"x"}"#, status: .badRequest, code: "BAD_REQUEST", field: "error"),
        Case(description: "an error over 1000 characters", uri: result, caller: .child, json: #"{"status":"failed","error":"\#(String(repeating: "e", count: 1001))"}"#, status: .badRequest, code: "BAD_REQUEST", field: "error"),
        Case(description: "a result from a device that is not the target", uri: result, caller: .sibling, json: #"{"status":"executed"}"#, status: .notFound, code: "NOT_FOUND"),
        Case(description: "a result from a parent", uri: result, json: #"{"status":"executed"}"#, status: .forbidden, code: "ACCESS_DENIED"),
        Case(description: "a result for a cancelled command", uri: result, caller: .child, json: #"{"status":"executed"}"#, status: .conflict, code: "CONFLICT", before: .cancel),
        Case(description: "a result for an unknown command", uri: { _, _ in "/v1/commands/\(UUID().lowercased)/result" }, caller: .child, json: #"{"status":"executed"}"#, status: .notFound, code: "NOT_FOUND"),
        Case(description: "a cancel of another family's command", uri: { _, command in "/v1/commands/\(command)/cancel" }, caller: .otherFamily, status: .notFound, code: "NOT_FOUND"),
    ]

    @Test(arguments: cases)
    func isRefusedAndChangesNothing(_ bad: Case) async throws {
        try await withTestServer { server in
            let fixture = try await FamilyFixture.make(server)
            let (_, sibling) = try await server.pair(by: fixture.parent)
            if bad.before == .cancel {
                let cancel = try await server.send(.post, "/v1/commands/\(fixture.commandID)/cancel", credential: fixture.parent.credential)
                #expect(cancel.status == .ok)
            }
            let credential = switch bad.caller {
            case .parent: fixture.parent.credential
            case .child: fixture.child.credential
            case .sibling: sibling.credential
            case .otherFamily: fixture.otherParent.credential
            }
            let before = try await server.fingerprint()
            let reply = try await server.send(bad.method, bad.uri(fixture, fixture.commandID), credential: credential, json: bad.json)
            #expect(reply.status == bad.status, "\(String(buffer: reply.body))")
            #expect(reply.errorCode == bad.code)
            #expect(reply.error?.field == bad.field)
            if let reason = bad.reason { #expect(reply.error?.reason.contains(reason) == true, "\(String(describing: reply.error))") }
            #expect(try await server.fingerprint() == before, "the refused request changed the database")
        }
    }
}
