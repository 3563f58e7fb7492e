import FamilySyncProtocol
import Testing

extension TestServer {
    /// A parent's write into `zone`: an AppConfiguration in a child's zone, a custom record elsewhere.
    public func configure(_ zone: String, by parent: TestDevice, name: String = "app-1") async throws {
        let reply = try await send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: Self.write(zone, name))
        #expect(reply.status == .ok, "\(String(buffer: reply.body))")
    }

    public static func write(_ zone: String, _ name: String) -> String {
        guard zone.hasPrefix("child-") else {
            return #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"x-note","fields":{"text":"hello"}}}]}"#
        }
        return """
            {"operations":[{"operationType":"forceReplace","record":{"recordName":"\(name)","recordType":"AppConfiguration",
             "fields":{"logicalID":"\(name)","displayName":"App","category":"learning","isEnabled":true,"blockingEnabled":false}}}]}
            """
    }
}
