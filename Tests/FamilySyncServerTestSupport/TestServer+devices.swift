import FamilySyncCore
import FamilySyncProtocol
import Foundation
import Testing

// What the server's and the dashboard's tests both do to a test server.
extension TestServer {
    /// The member a confirmed device belongs to, as it reads itself.
    public func memberID(of device: TestDevice) async throws -> UUID {
        try #require(try await send(.get, "/v1/devices/me", credential: device.credential).decode(DeviceBody.self).memberId)
    }

    /// A heartbeat from `device` now (on the test clock), with what else is given.
    public func heartbeat(_ device: TestDevice, active: Bool = true, sequence: Int? = nil, memory: Int? = nil, errors: [String] = []) async throws -> Reply {
        var members = [#""heartbeatAt":"\#(Instant.format(clock.now()))""#, #""monitoringActive":\#(active)"#]
        if let sequence { members.append(#""notificationSequence":\#(sequence)"#) }
        if let memory { members.append(#""memoryUsageMB":\#(memory)"#) }
        if !errors.isEmpty { members.append(#""errors":[\#(errors.joined(separator: ","))]"#) }
        return try await send(.post, "/v1/devices/me/health", credential: device.credential, json: "{" + members.joined(separator: ",") + "}")
    }

    public func extensionError(_ id: UUID = UUID(), action: String = "record_usage", success: Bool = false, secondsAgo: TimeInterval = 10) -> String {
        #"{"id":"\#(id.lowercased)","timestamp":"\#(Instant.format(clock.now().addingTimeInterval(-secondsAgo)))","eventName":"intervalDidStart","action":"\#(action)","success":\#(success),"errorDescription":"could not write","memoryUsageMB":5}"#
    }

    /// A device's shield state (§11) as `caller` reads it, at an instant or now.
    public func shieldState(of child: TestDevice, as caller: TestDevice, at: String? = nil) async throws -> ShieldStateBody {
        let reply = try await send(.get, "/v1/devices/\(child.deviceID.lowercased)/shield-state" + (at.map { "?at=\($0)" } ?? ""), credential: caller.credential)
        #expect(reply.status == .ok, "\(String(buffer: reply.body))")
        return try reply.decode(ShieldStateBody.self)
    }

    /// A records/modify body that writes one record with `forceReplace`; `fields` as JSON.
    public static func forceReplace(_ type: String, _ name: String, _ fields: String) -> String {
        #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"\#(type)","fields":\#(fields)}}]}"#
    }

    /// A Schedule record's fields: bedtime, 21:00–07:00, shielding two apps and gaming.
    public static let bedtimeSchedule = #"{"scheduleID":"bedtime","name":"Bedtime","enabled":true,"intervalStart":{"hour":21,"minute":0},"intervalEnd":{"hour":7,"minute":0},"mode":"shield","applications":["tiktok","youtube"],"categories":["gaming"],"shieldConfigurationID":"night"}"#

    public func sendCommand(_ json: String, to child: TestDevice, by parent: TestDevice) async throws -> CommandBody {
        let reply = try await send(.post, "/v1/devices/\(child.deviceID.lowercased)/commands", credential: parent.credential, json: json)
        #expect(reply.status == .created, "\(String(buffer: reply.body))")
        return try reply.decode(CommandBody.self)
    }

    public func commands(of child: TestDevice, as caller: TestDevice, status: String? = nil) async throws -> [CommandBody] {
        let reply = try await send(.get, "/v1/devices/\(child.deviceID.lowercased)/commands" + (status.map { "?status=\($0)" } ?? ""), credential: caller.credential)
        #expect(reply.status == .ok, "\(String(buffer: reply.body))")
        return try reply.decode(CommandList.self).commands
    }

    public func report(_ commandID: String, _ json: String, by device: TestDevice) async throws -> Reply {
        try await send(.post, "/v1/commands/\(commandID)/result", credential: device.credential, json: json)
    }

    /// Invites a device into an existing member, accepts it from a device of `platform` in
    /// `timeZone`, and confirms it.
    public func pair(into memberID: UUID, by parent: TestDevice, role: DeviceRole = .child, platform: DevicePlatform, timeZone: String) async throws -> TestDevice {
        let created = try await send(.post, "/v1/pairings", credential: parent.credential, json: #"{"role":"\#(role.rawValue)","memberId":"\#(memberID.lowercased)"}"#)
        #expect(created.status == .created, "\(String(buffer: created.body))")
        let invitation = try created.decode(CreatePairingResponse.self)
        #expect(invitation.pairing.memberId == memberID)
        let accepted = try await send(.post, "/v1/pairings/accept", body: AcceptPairingRequest(
            qrPayload: invitation.qrPayload, device: .init(name: "\(platform.rawValue) device", platform: platform, timeZone: timeZone)
        ))
        #expect(accepted.status == .ok, "\(String(buffer: accepted.body))")
        let body = try accepted.decode(AcceptPairingResponse.self)
        #expect(body.device.memberId == nil, "a device joins its member when confirmed")
        let confirmed = try await send(.post, "/v1/pairings/\(invitation.pairing.id.lowercased)/confirm", credential: parent.credential)
        #expect(confirmed.status == .ok, "\(String(buffer: confirmed.body))")
        return TestDevice(familyID: body.device.familyId, deviceID: body.device.id, credential: body.credential)
    }

    /// One session of `minutes` ending an hour before the test clock's now.
    public func uploadSession(by device: TestDevice, app: String, minutes: Int, timeZone: String) async throws {
        let end = clock.now().addingTimeInterval(-3600)
        let start = end.addingTimeInterval(TimeInterval(-minutes * 60))
        let record = """
            {"recordID":"\(UUID().lowercased)","logicalID":"\(app)","displayName":"\(app.capitalized)","category":"learning",
             "sessionStart":"\(Instant.format(start))","sessionEnd":"\(Instant.format(end))","totalSeconds":\(minutes * 60),"earnedPoints":\(minutes)}
            """
        let reply = try await send(.post, "/v1/usage", credential: device.credential, json: #"{"timeZone":"\#(timeZone)","records":[\#(record)]}"#)
        #expect(reply.status == .ok, "\(String(buffer: reply.body))")
    }
}
