import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird
import NIOPosix

/// `PUT|DELETE /v1/members/{id}/pin` and `POST /v1/members/{id}/pin/verify` (PROTOCOL §11): the
/// PIN in front of parent mode on a child's device.
package struct ParentPINController {
    let pins: PostgresParentPINStore

    package init(pins: PostgresParentPINStore) {
        self.pins = pins
    }

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.put("members/:id/pin", use: set)
            .delete("members/:id/pin", use: clear)
            .post("members/:id/pin/verify", use: verify)
    }

    /// A parent sets (or changes) a member's PIN: stored as PBKDF2, published in the member's
    /// `parent-pin` record.
    @Sendable func set(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .setParentPIN)
        let memberID = try context.pathID()
        let body = try await request.decode(as: SetParentPINRequest.self, context: context)
        try ParentPIN.validate(body.pin, field: "pin")
        let pin = try await Self.offEventLoop { try ParentPIN(pin: body.pin) }
        try await pins.set(pin, memberID: memberID, by: caller, as: context.writer)
        return Response(status: .noContent)
    }

    /// A parent clears a member's PIN: parent mode on its devices is no longer behind one.
    @Sendable func clear(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .setParentPIN)
        try await pins.clear(memberID: try context.pathID(), by: caller, as: context.writer)
        return Response(status: .noContent)
    }

    /// One of the member's devices checks a PIN typed on it; five wrong in 15 minutes lock
    /// checks out for 15.
    @Sendable func verify(_ request: Request, context: FamilySyncRequestContext) async throws -> VerifyParentPINResponse {
        let caller = try context.requireDevice()
        let memberID = try context.pathID()
        try AccessPolicy.check(caller, .verifyParentPIN(member: memberID))
        let body = try await request.decode(as: VerifyParentPINRequest.self, context: context)
        try ParentPIN.validate(body.pin, field: "pin")
        let typed = body.pin
        let valid = try await pins.verify(memberID: memberID, familyID: caller.familyID) { stored in
            try await Self.offEventLoop { stored.matches(typed) }
        }
        return VerifyParentPINResponse(valid: valid)
    }

    /// PBKDF2's 210,000 rounds take tens of milliseconds: on NIO's blocking pool, not on a thread
    /// that serves requests.
    static func offEventLoop<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await NIOThreadPool.singleton.runIfActive(work)
    }
}
