import Foundation

/// Where a command stands (PROTOCOL §7.1).
public enum CommandStatus: String, Sendable, Codable, CaseIterable {
    case pending, delivered, executed, failed, cancelled, expired

    public var isFinal: Bool {
        switch self {
        case .pending, .delivered: false
        case .executed, .failed, .cancelled, .expired: true
        }
    }
}

/// A configuration command from a parent to a child device (PROTOCOL §7.1), stored as a
/// `ConfigurationCommand` record `command-<commandId>` in the child's zone.
public struct Command: Sendable, Equatable {
    public var commandID: UUID
    public var targetDeviceID: UUID
    public var commandType: String
    public var payload: [String: JSONValue]
    public var status: CommandStatus
    public var createdAt: Date
    public var createdBy: UUID
    public var expiresAt: Date
    public var deliveredAt: Date?
    /// When the child reported `executed` or `failed`.
    public var executedAt: Date?
    public var cancelledAt: Date?
    public var error: String?

    public init(
        commandID: UUID, targetDeviceID: UUID, commandType: String, payload: [String: JSONValue], status: CommandStatus,
        createdAt: Date, createdBy: UUID, expiresAt: Date, deliveredAt: Date? = nil, executedAt: Date? = nil,
        cancelledAt: Date? = nil, error: String? = nil
    ) {
        self.commandID = commandID
        self.targetDeviceID = targetDeviceID
        self.commandType = commandType
        self.payload = payload
        self.status = status
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.expiresAt = expiresAt
        self.deliveredAt = deliveredAt
        self.executedAt = executedAt
        self.cancelledAt = cancelledAt
        self.error = error
    }

    /// A command a parent sends (§7.1): pending, expiring `expiresIn` seconds after `now`.
    public static func sent(
        _ commandType: String, payload: [String: JSONValue], expiresIn: Int, to child: UUID, by parent: UUID, at now: Date, commandID: UUID = UUID()
    ) -> Command {
        Command(
            commandID: commandID, targetDeviceID: child, commandType: commandType, payload: payload, status: .pending, createdAt: now,
            createdBy: parent, expiresAt: now.addingTimeInterval(TimeInterval(expiresIn))
        )
    }

    /// Whether `caller` may see or act on the command: any parent of the family, and its target.
    /// Another device's command is none of a child's business: to it, it does not exist.
    public func concerns(_ caller: AuthenticatedDevice) -> Bool {
        caller.role == .parent || targetDeviceID == caller.deviceID
    }

    public var recordName: String { Self.recordName(commandID) }
    public static func recordName(_ id: UUID) -> String { "command-\(id.lowercased)" }

    public static let knownTypes: Set<String> = ["block", "unblock", "update_config", "request_sync"]
    public static let expiry = 1...(30 * 86_400)
    public static let defaultExpirySeconds = 86_400
    public static let maximumErrorLength = 1000

    /// `block`, `unblock`, `update_config`, `request_sync`, or an app's own `x-…` (at most 64).
    public static func checkType(_ type: String, field: String) throws(FamilySyncError) {
        guard knownTypes.contains(type) || (type.hasPrefix("x-") && (3...64).contains(type.utf8.count)) else {
            throw .badRequest("commandType is block, unblock, update_config, request_sync or x-….", field: field)
        }
    }

    // MARK: - Lifecycle

    /// What happens to a command.
    public enum Event: Sendable, Equatable {
        /// The target child fetched it (by listing, or by reporting on it).
        case delivered
        case result(executed: Bool, error: String?)
        case cancel
    }

    /// The command after `event` at `now`, or nil when nothing changes (a repeat of what already
    /// happened, or a fetch of a command that is past delivery). A command past `expiresAt` that
    /// was still pending or delivered is expired first. Anything else is `409 CONFLICT`.
    public func applying(_ event: Event, at now: Date) throws(FamilySyncError) -> Command? {
        var command = self
        command.expireIfDue(at: now)
        switch (event, command.status) {
        case (.delivered, .pending):
            command.status = .delivered
            command.deliveredAt = now
        case (.delivered, _):
            break
        case (.result(let executed, let error), .pending), (.result(let executed, let error), .delivered):
            command.deliveredAt = command.deliveredAt ?? now
            command.status = executed ? .executed : .failed
            command.executedAt = now
            command.error = executed ? nil : error
        case (.result(let executed, let error), .executed), (.result(let executed, let error), .failed):
            let same = command.status == (executed ? .executed : .failed) && (executed || command.error == error)
            guard same else { throw FamilySyncError(.conflict, "The command already has its result: \(command.status.rawValue).") }
        case (.result, .cancelled), (.result, .expired):
            throw FamilySyncError(.conflict, "The command was \(command.status.rawValue); it takes no result.")
        case (.cancel, .pending), (.cancel, .delivered):
            command.status = .cancelled
            command.cancelledAt = now
        case (.cancel, .cancelled):
            break
        case (.cancel, _):
            throw FamilySyncError(.conflict, "The command is \(command.status.rawValue); only a pending or delivered one can be cancelled.")
        }
        return command == self ? nil : command
    }

    /// Pending or delivered past `expiresAt` → expired. Returns whether it changed.
    @discardableResult
    public mutating func expireIfDue(at now: Date) -> Bool {
        guard !status.isFinal, now >= expiresAt else { return false }
        status = .expired
        return true
    }
}

extension Command {
    /// A command as a parent asks for it (§7.1), checked whole: its type and payload, its
    /// lifetime, and the `AppConfiguration` records that go with it (upserted by `logicalID` in
    /// its transaction).
    public struct Draft: Sendable {
        public private(set) var commandType: String
        public private(set) var payload: [String: JSONValue]
        public private(set) var expiresInSeconds: Int
        public private(set) var configuration: [[String: JSONValue]]

        /// The request's members; nil ones take their defaults. The first fault is the error,
        /// naming its member.
        public init(commandType: String, payload: [String: JSONValue]?, expiresInSeconds: Int?, configuration: [[String: JSONValue]]?) throws(FamilySyncError) {
            try Command.checkType(commandType, field: "commandType")
            let payload = payload ?? [:]
            let payloadBytes = (try? JSONEncoder().encode(payload).count) ?? .max
            guard payloadBytes <= Limits.maximumCommandPayloadBytes else {
                throw .limitExceeded("payload is \(payloadBytes) bytes; the limit is \(Limits.maximumCommandPayloadBytes).")
            }
            try Command.checkPayload(payload, type: commandType, field: "payload")
            let expiry = expiresInSeconds ?? Command.defaultExpirySeconds
            guard Command.expiry.contains(expiry) else {
                throw .badRequest("expiresInSeconds is from 1 to \(Command.expiry.upperBound) (30 days).", field: "expiresInSeconds")
            }
            let configuration = configuration ?? []
            guard configuration.count <= Limits.maximumCommandConfigurations else {
                throw .limitExceeded("At most \(Limits.maximumCommandConfigurations) configurations go with one command.")
            }
            var seen: Set<String> = []
            for (index, fields) in configuration.enumerated() {
                try RecordSchema.validate(type: RecordTypeName.appConfiguration, fields: fields, field: "configuration[\(index)]")
                guard case .string(let id)? = fields["logicalID"], seen.insert(id).inserted else {
                    throw .badRequest("Each logicalID appears once in configuration.", field: "configuration[\(index)].logicalID")
                }
            }
            self.commandType = commandType
            self.payload = payload
            self.expiresInSeconds = expiry
            self.configuration = configuration
        }
    }
}

extension Command.Event {
    /// A child's report on a command (§7.1): `executed`, or `failed` with an optional error of at
    /// most `maximumErrorLength` characters.
    public init(result status: String, error: String?) throws(FamilySyncError) {
        switch status {
        case "executed":
            guard error == nil else { throw .badRequest("error goes only with status failed.", field: "error") }
            self = .result(executed: true, error: nil)
        case "failed":
            guard (error?.count ?? 0) <= Command.maximumErrorLength else {
                throw .badRequest("error is at most \(Command.maximumErrorLength) characters.", field: "error")
            }
            self = .result(executed: false, error: error)
        default:
            throw .badRequest("status is executed or failed.", field: "status")
        }
    }
}
