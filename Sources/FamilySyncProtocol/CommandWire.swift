import FamilySyncCore
import Foundation

/// `POST /v1/devices/{childId}/commands` (PROTOCOL §7.1).
public struct CreateCommandRequest: Codable, Sendable, Equatable {
    public var commandType: String
    public var payload: [String: JSONValue]?
    public var expiresInSeconds: Int?
    /// `AppConfiguration` fields, upserted by `logicalID` in the same transaction.
    public var configuration: [[String: JSONValue]]?

    public init(commandType: String, payload: [String: JSONValue]? = nil, expiresInSeconds: Int? = nil, configuration: [[String: JSONValue]]? = nil) {
        self.commandType = commandType
        self.payload = payload
        self.expiresInSeconds = expiresInSeconds
        self.configuration = configuration
    }

    /// A `block` of the apps named by logicalID (§7.1, §11: `payload.logicalIDs`), or of the
    /// whole device for nil.
    public static func block(_ logicalIDs: [String]?, expiresInSeconds: Int? = nil) -> CreateCommandRequest {
        CreateCommandRequest(commandType: "block", payload: Command.appsPayload(logicalIDs), expiresInSeconds: expiresInSeconds)
    }

    /// An `unblock` of the apps named by logicalID, or for nil of the whole device, which also
    /// drops every earlier command's choice for an app.
    public static func unblock(_ logicalIDs: [String]?, expiresInSeconds: Int? = nil) -> CreateCommandRequest {
        CreateCommandRequest(commandType: "unblock", payload: Command.appsPayload(logicalIDs), expiresInSeconds: expiresInSeconds)
    }
}

/// `POST /v1/commands/{id}/result`.
public struct CommandResultRequest: Codable, Sendable, Equatable {
    /// `executed` or `failed`.
    public var status: String
    public var error: String?

    public init(status: String, error: String? = nil) {
        self.status = status
        self.error = error
    }
}

/// A command on the wire; the instants of steps not yet taken are `null`.
public struct CommandBody: Codable, Sendable, Equatable {
    public var commandId: String
    public var targetDeviceId: String
    public var commandType: String
    public var payload: [String: JSONValue]
    public var status: CommandStatus
    public var createdAt: Date
    public var createdBy: String
    public var expiresAt: Date
    public var deliveredAt: Date?
    public var executedAt: Date?
    public var cancelledAt: Date?
    public var error: String?

    public init(_ command: Command) {
        commandId = command.commandID.lowercased
        targetDeviceId = command.targetDeviceID.lowercased
        commandType = command.commandType
        payload = command.payload
        status = command.status
        createdAt = command.createdAt
        createdBy = command.createdBy.lowercased
        expiresAt = command.expiresAt
        deliveredAt = command.deliveredAt
        executedAt = command.executedAt
        cancelledAt = command.cancelledAt
        error = command.error
    }

    enum CodingKeys: String, CodingKey {
        case commandId, targetDeviceId, commandType, payload, status, createdAt, createdBy, expiresAt, deliveredAt, executedAt, cancelledAt, error
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(commandId, forKey: .commandId)
        try container.encode(targetDeviceId, forKey: .targetDeviceId)
        try container.encode(commandType, forKey: .commandType)
        try container.encode(payload, forKey: .payload)
        try container.encode(status, forKey: .status)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(createdBy, forKey: .createdBy)
        try container.encode(expiresAt, forKey: .expiresAt)
        // Every step's member is present, null until it happens, so a parent's UI can show them all.
        try container.encode(deliveredAt, forKey: .deliveredAt)
        try container.encode(executedAt, forKey: .executedAt)
        try container.encode(cancelledAt, forKey: .cancelledAt)
        try container.encode(error, forKey: .error)
    }
}

public struct CommandList: Codable, Sendable, Equatable {
    public var commands: [CommandBody]

    public init(commands: [CommandBody]) {
        self.commands = commands
    }
}
