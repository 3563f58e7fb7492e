import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// Configuration commands (PROTOCOL §7.1): parent → child, with delivery and results.
struct CommandController {
    let writes: PostgresCommandWrites
    let reads: PostgresCommandReads

    func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.post("devices/:id/commands", use: send)
            .get("devices/:id/commands", use: list)
            .post("commands/:id/result", use: reportResult)
            .post("commands/:id/cancel", use: cancel)
    }

    /// `POST /v1/devices/{id}/commands`: a parent sends a command to an active child.
    @Sendable func send(_ request: Request, context: FamilySyncRequestContext) async throws -> EditedResponse<CommandBody> {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .sendCommand)
        let childID = try context.pathID()
        let body = try await request.decode(as: CreateCommandRequest.self, context: context)
        let command = try await writes.create(try Self.validate(body), to: childID, by: caller)
        return EditedResponse(status: .created, response: CommandBody(command))
    }

    /// `GET /v1/devices/{id}/commands`: a child's commands, filtered on their status at arrival.
    @Sendable func list(_ request: Request, context: FamilySyncRequestContext) async throws -> CommandList {
        let caller = try context.requireDevice()
        let childID = try context.pathID()
        try AccessPolicy.check(caller, .readCommands(child: childID))
        let status = try request.uri.queryParameters.get("status").map { text throws(FamilySyncError) in
            guard let status = CommandStatusFilter(rawValue: text) else {
                throw .badRequest("status is one of \(CommandStatusFilter.allCases.map(\.rawValue).joined(separator: ", ")).", field: "status")
            }
            return status
        }
        let list = try await reads.list(childID: childID, caller: caller, status: status)
        return CommandList(commands: list.map(CommandBody.init))
    }

    /// `POST /v1/commands/{id}/result`: the target child says how it went.
    @Sendable func reportResult(_ request: Request, context: FamilySyncRequestContext) async throws -> CommandBody {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .reportCommandResult)
        let id = try context.pathID()
        let body = try await request.decode(as: CommandResultRequest.self, context: context)
        return CommandBody(try await writes.apply(try Self.result(body), to: id, by: caller))
    }

    /// `POST /v1/commands/{id}/cancel`: a parent takes back a command not yet carried out.
    @Sendable func cancel(_ request: Request, context: FamilySyncRequestContext) async throws -> CommandBody {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .sendCommand)
        return CommandBody(try await writes.apply(.cancel, to: try context.pathID(), by: caller))
    }

    static func validate(_ body: CreateCommandRequest) throws(FamilySyncError) -> PostgresCommandWrites.NewCommand {
        try Command.checkType(body.commandType, field: "commandType")
        let payload = body.payload ?? [:]
        let payloadBytes = (try? JSONEncoder().encode(payload).count) ?? .max
        guard payloadBytes <= Limits.maximumCommandPayloadBytes else {
            throw .limitExceeded("payload is \(payloadBytes) bytes; the limit is \(Limits.maximumCommandPayloadBytes).")
        }
        try Command.checkPayload(payload, type: body.commandType, field: "payload")
        let expiry = body.expiresInSeconds ?? Command.defaultExpirySeconds
        guard Command.expiry.contains(expiry) else {
            throw .badRequest("expiresInSeconds is from 1 to \(Command.expiry.upperBound) (30 days).", field: "expiresInSeconds")
        }
        let configuration = body.configuration ?? []
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
        return .init(commandType: body.commandType, payload: payload, expiresInSeconds: expiry, configuration: configuration)
    }

    static func result(_ body: CommandResultRequest) throws(FamilySyncError) -> Command.Event {
        switch body.status {
        case "executed":
            guard body.error == nil else { throw .badRequest("error goes only with status failed.", field: "error") }
            return .result(executed: true, error: nil)
        case "failed":
            guard (body.error?.count ?? 0) <= Command.maximumErrorLength else {
                throw .badRequest("error is at most \(Command.maximumErrorLength) characters.", field: "error")
            }
            return .result(executed: false, error: body.error)
        default:
            throw .badRequest("status is executed or failed.", field: "status")
        }
    }
}
