import FamilySyncCore
import Foundation
import Testing

/// A parent's command and a child's report on it, checked whole before a store is asked (§7.1).
@Suite struct CommandDraftTests {
    static func app(_ id: String) -> [String: JSONValue] {
        ["logicalID": .string(id), "displayName": .string(id), "category": .string("gaming"), "isEnabled": .bool(true), "blockingEnabled": .bool(true)]
    }

    @Test func aDraftTakesItsDefaultsAndChecksEveryMember() throws {
        let draft = try Command.Draft(commandType: "request_sync", payload: nil, expiresInSeconds: nil, configuration: nil)
        #expect(draft.payload.isEmpty && draft.configuration.isEmpty && draft.expiresInSeconds == Command.defaultExpirySeconds)
        #expect(throws: FamilySyncError.self) { try Command.Draft(commandType: "dance", payload: nil, expiresInSeconds: nil, configuration: nil) }
        let expiry = #expect(throws: FamilySyncError.self) { try Command.Draft(commandType: "request_sync", payload: nil, expiresInSeconds: 0, configuration: nil) }
        #expect(expiry?.field == "expiresInSeconds")
        let twice = #expect(throws: FamilySyncError.self) {
            try Command.Draft(commandType: "request_sync", payload: nil, expiresInSeconds: nil, configuration: [Self.app("a"), Self.app("a")])
        }
        #expect(twice == .badRequest("Each logicalID appears once in configuration.", field: "configuration[1].logicalID"))
        let one = try Command.Draft(commandType: "block", payload: ["logicalIDs": .array([.string("a")])], expiresInSeconds: 60, configuration: [Self.app("a")])
        #expect(one.configuration.count == 1 && one.expiresInSeconds == 60)
    }

    @Test func aChildsReport() throws {
        #expect(try Command.Event(result: "executed", error: nil) == .result(executed: true, error: nil))
        #expect(try Command.Event(result: "failed", error: "no") == .result(executed: false, error: "no"))
        #expect(throws: FamilySyncError.badRequest("error goes only with status failed.", field: "error")) { try Command.Event(result: "executed", error: "x") }
        #expect(throws: FamilySyncError.badRequest("status is executed or failed.", field: "status")) { try Command.Event(result: "done", error: nil) }
        let long = String(repeating: "x", count: Command.maximumErrorLength + 1)
        #expect(throws: FamilySyncError.self) { try Command.Event(result: "failed", error: long) }
    }
}
