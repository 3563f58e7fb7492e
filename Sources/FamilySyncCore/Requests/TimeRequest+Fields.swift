import Foundation

extension TimeRequest {
    /// The request as a `TimeRequest` record's fields (PROTOCOL §16): what was asked, where it
    /// stands, and the decision once there is one. Absent members are left out, never null.
    public var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "requestId": .string(requestID.lowercased), "memberId": .string(memberID.lowercased), "deviceId": .string(deviceID.lowercased),
            "target": .object(["kind": .string(target.kind), "id": .string(target.id)]), "status": .string(status.rawValue), "date": .string(date),
            "createdAt": .string(Instant.format(createdAt)), "expiresAt": .string(Instant.format(expiresAt)),
        ]
        switch asked {
        case .minutes(let minutes): fields["minutes"] = .number(Double(minutes))
        case .restOfToday: fields["restOfToday"] = .bool(true)
        }
        if let note { fields["note"] = .string(note) }
        if let decidedAt { fields["decidedAt"] = .string(Instant.format(decidedAt)) }
        if let decidedBy { fields["decidedBy"] = .string(decidedBy.lowercased) }
        switch granted {
        case .minutes(let minutes)?: fields["grantedMinutes"] = .number(Double(minutes))
        case .restOfToday?: fields["grantedRestOfToday"] = .bool(true)
        case nil: break
        }
        if let until { fields["until"] = .string(Instant.format(until)) }
        if let reply { fields["reply"] = .string(reply) }
        return fields
    }

    /// Reads a stored request back; nil for fields the server did not write.
    public init?(fields: [String: JSONValue]) {
        func string(_ key: String) -> String? { if case .string(let value)? = fields[key] { value } else { nil } }
        func instant(_ key: String) -> Date? { string(key).flatMap(Instant.parse) }
        func uuid(_ key: String) -> UUID? { string(key).flatMap(UUID.init(uuidString:)) }
        func whole(_ key: String) -> Int? { if case .number(let value)? = fields[key], let whole = Int(exactly: value) { whole } else { nil } }
        func flag(_ key: String) -> Bool { if case .bool(true)? = fields[key] { true } else { false } }
        guard let requestID = uuid("requestId"), let memberID = uuid("memberId"), let deviceID = uuid("deviceId"),
            case .object(let target)? = fields["target"], case .string(let kind)? = target["kind"], case .string(let id)? = target["id"],
            let parsedTarget = try? TimeRequestTarget(kind: kind, id: id, field: "target"),
            let asked = try? TimeSpan(minutes: whole("minutes"), restOfToday: flag("restOfToday"), allowed: 1...1440, field: ""),
            let status = string("status").flatMap(TimeRequestStatus.init(rawValue:)), let date = string("date"),
            let createdAt = instant("createdAt"), let expiresAt = instant("expiresAt")
        else { return nil }
        let granted: TimeSpan? = if flag("grantedRestOfToday") { .restOfToday } else { whole("grantedMinutes").map(TimeSpan.minutes) }
        self.init(
            requestID: requestID, memberID: memberID, deviceID: deviceID, target: parsedTarget, asked: asked, note: string("note"), status: status,
            date: date, createdAt: createdAt, expiresAt: expiresAt, decidedAt: instant("decidedAt"), decidedBy: uuid("decidedBy"), granted: granted,
            until: instant("until"), reply: string("reply")
        )
    }
}
