import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `/v1/devices…` (PROTOCOL §2).
package struct DeviceController {
    let devices: PostgresDeviceStore

    package init(devices: PostgresDeviceStore) {
        self.devices = devices
    }

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.get("devices", use: list)
            .get("devices/me", use: own)
            .patch("devices/me", use: updateOwn)
            .patch("devices/:id", use: update)
            .delete("devices/:id", use: revoke)
            .post("devices/me/credential", use: rotateCredential)
    }

    /// `GET /v1/devices`: a parent sees the family; a child sees itself.
    @Sendable func list(_ request: Request, context: FamilySyncRequestContext) async throws -> DeviceList {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .listDevices)
        let list = try await devices.list(familyID: caller.familyID, onlyDevice: caller.role == .parent ? nil : caller.deviceID)
        return DeviceList(devices: list.map(DeviceBody.init))
    }

    /// `GET /v1/devices/me`.
    @Sendable func own(_ request: Request, context: FamilySyncRequestContext) async throws -> DeviceBody {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .readOwnDevice)
        return DeviceBody(try await devices.get(familyID: caller.familyID, deviceID: caller.deviceID))
    }

    /// `PATCH /v1/devices/me`.
    @Sendable func updateOwn(_ request: Request, context: FamilySyncRequestContext) async throws -> DeviceBody {
        try await update(request, context, target: context.requireDevice().deviceID)
    }

    /// `PATCH /v1/devices/{id}`.
    @Sendable func update(_ request: Request, context: FamilySyncRequestContext) async throws -> DeviceBody {
        try await update(request, context, target: try context.pathID())
    }

    /// `DELETE /v1/devices/{id}[?purge=true]`: revoked at once; with `purge`, its zone goes too.
    @Sendable func revoke(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .revokeDevice)
        let purge = try Self.purgeFlag(request)
        try await devices.revoke(familyID: caller.familyID, deviceID: try context.pathID(), purge: purge, as: context.writer)
        return Response(status: .noContent)
    }

    /// `POST /v1/devices/me/credential`: a new credential; the old one stops at once.
    @Sendable func rotateCredential(_ request: Request, context: FamilySyncRequestContext) async throws -> CredentialResponse {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .rotateOwnCredential)
        let credential = try await devices.rotateCredential(familyID: caller.familyID, deviceID: caller.deviceID, as: context.writer)
        return CredentialResponse(credential: credential.token)
    }

    private func update(_ request: Request, _ context: FamilySyncRequestContext, target: UUID) async throws -> DeviceBody {
        let caller = try context.requireDevice()
        let body = try await request.decode(as: UpdateDeviceRequest.self, context: context)
        var members = Set<AccessPolicy.DeviceMember>()
        if body.name != nil { members.insert(.name) }
        if body.childName != nil { members.insert(.childName) }
        if body.timeZone != nil { members.insert(.timeZone) }
        if body.tracked != nil { members.insert(.tracked) }
        guard !members.isEmpty else {
            throw FamilySyncError.badRequest("Send at least one of name, childName, timeZone, tracked.")
        }
        try AccessPolicy.check(caller, .updateDevice(target: target, members: members))
        let device = try await devices.update(
            familyID: caller.familyID, deviceID: target,
            name: try body.name.map { name throws(FamilySyncError) in try Validation.name(name, field: "name") },
            childName: try body.childName.map { name throws(FamilySyncError) in try Validation.name(name, field: "childName") },
            timeZone: try body.timeZone.map { zone throws(FamilySyncError) in try Validation.timeZone(zone, field: "timeZone") },
            tracked: body.tracked, as: context.writer
        )
        return DeviceBody(device)
    }

    static func purgeFlag(_ request: Request) throws(FamilySyncError) -> Bool {
        switch request.uri.queryParameters.get("purge") {
        case nil, "false": false
        case "true": true
        case let other?: throw .badRequest("purge must be true or false, not '\(other.prefix(32))'.", field: "purge")
        }
    }
}
