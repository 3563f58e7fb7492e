import Foundation

extension Command {
    /// The command as a `ConfigurationCommand` record's fields: §7.1's Command members.
    public var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "commandId": .string(commandID.lowercased), "targetDeviceId": .string(targetDeviceID.lowercased),
            "commandType": .string(commandType), "payload": .object(payload), "status": .string(status.rawValue),
            "createdAt": .string(Instant.format(createdAt)), "createdBy": .string(createdBy.lowercased),
            "expiresAt": .string(Instant.format(expiresAt)),
        ]
        if let deliveredAt { fields["deliveredAt"] = .string(Instant.format(deliveredAt)) }
        if let executedAt { fields["executedAt"] = .string(Instant.format(executedAt)) }
        if let cancelledAt { fields["cancelledAt"] = .string(Instant.format(cancelledAt)) }
        if let error { fields["error"] = .string(error) }
        return fields
    }

    /// The command as its `ConfigurationCommand` record, written by `device` at `now`; `createdAt`
    /// is the stored record's (the command's own when it is new).
    public func record(by device: UUID, role: WriterRole, createdAt: Date, at now: Date) -> Record {
        Record(
            recordName: recordName, recordType: RecordTypeName.configurationCommand, fields: fields, changeTag: "", deleted: false,
            createdAt: createdAt, createdBy: createdBy, modifiedAt: now, modifiedBy: device, modifiedRole: role, clientModifiedAt: now
        )
    }

    /// Reads a stored command back; nil for fields the server did not write.
    public init?(fields: [String: JSONValue]) {
        func string(_ key: String) -> String? { if case .string(let value)? = fields[key] { value } else { nil } }
        func instant(_ key: String) -> Date? { string(key).flatMap(Instant.parse) }
        guard let id = string("commandId").flatMap(UUID.init(uuidString:)),
            let target = string("targetDeviceId").flatMap(UUID.init(uuidString:)),
            let type = string("commandType"), let status = string("status").flatMap(CommandStatus.init(rawValue:)),
            let createdAt = instant("createdAt"), let createdBy = string("createdBy").flatMap(UUID.init(uuidString:)),
            let expiresAt = instant("expiresAt"), case .object(let payload)? = fields["payload"]
        else { return nil }
        self.init(
            commandID: id, targetDeviceID: target, commandType: type, payload: payload, status: status, createdAt: createdAt,
            createdBy: createdBy, expiresAt: expiresAt, deliveredAt: instant("deliveredAt"), executedAt: instant("executedAt"),
            cancelledAt: instant("cancelledAt"), error: string("error")
        )
    }
}
