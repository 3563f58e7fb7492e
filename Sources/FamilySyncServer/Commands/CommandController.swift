import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// Configuration commands (PROTOCOL §7.1): parent → child, with delivery and results.
package struct CommandController {
    let writes: PostgresCommandWrites
    let reads: PostgresCommandReads

    package init(writes: PostgresCommandWrites, reads: PostgresCommandReads) {
        self.writes = writes
        self.reads = reads
    }

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
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
        let command = try await writes.create(try Self.validate(body), to: childID, by: caller, as: context.writer)
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
        let list = try await reads.list(childID: childID, caller: caller, status: status, as: context.writer)
        return CommandList(commands: list.map(CommandBody.init))
    }

    /// `POST /v1/commands/{id}/result`: the target child says how it went.
    @Sendable func reportResult(_ request: Request, context: FamilySyncRequestContext) async throws -> CommandBody {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .reportCommandResult)
        let id = try context.pathID()
        let body = try await request.decode(as: CommandResultRequest.self, context: context)
        return CommandBody(try await writes.apply(try Self.result(body), to: id, by: caller, as: context.writer))
    }

    /// `POST /v1/commands/{id}/cancel`: a parent takes back a command not yet carried out.
    @Sendable func cancel(_ request: Request, context: FamilySyncRequestContext) async throws -> CommandBody {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .sendCommand)
        return CommandBody(try await writes.apply(.cancel, to: try context.pathID(), by: caller, as: context.writer))
    }

    static func validate(_ body: CreateCommandRequest) throws(FamilySyncError) -> Command.Draft {
        try Command.Draft(commandType: body.commandType, payload: body.payload, expiresInSeconds: body.expiresInSeconds, configuration: body.configuration)
    }

    static func result(_ body: CommandResultRequest) throws(FamilySyncError) -> Command.Event {
        try Command.Event(result: body.status, error: body.error)
    }
}
