import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `/v1/devices…` (PROTOCOL §2).
struct DeviceController {
    let devices: PostgresDeviceStore

    func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.get("devices") { _, context in
            let caller = try context.requireDevice()
            try AccessPolicy.check(caller, .listDevices)
            // A parent sees the family; a child sees itself.
            let list = try await devices.list(familyID: caller.familyID, onlyDevice: caller.role == .parent ? nil : caller.deviceID)
            return DeviceList(devices: list.map(DeviceBody.init))
        }
        group.get("devices/me") { _, context in
            let caller = try context.requireDevice()
            try AccessPolicy.check(caller, .readOwnDevice)
            return try DeviceBody(try await devices.get(familyID: caller.familyID, deviceID: caller.deviceID))
        }
        group.patch("devices/me") { request, context in
            try await update(request, context, target: context.requireDevice().deviceID)
        }
        group.patch("devices/:id") { request, context in
            try await update(request, context, target: try context.pathID())
        }
        group.delete("devices/:id") { request, context -> Response in
            let caller = try context.requireDevice()
            try AccessPolicy.check(caller, .revokeDevice)
            let purge = try Self.purgeFlag(request)
            try await devices.revoke(familyID: caller.familyID, deviceID: try context.pathID(), purge: purge)
            return Response(status: .noContent)
        }
        group.post("devices/me/credential") { _, context in
            let caller = try context.requireDevice()
            try AccessPolicy.check(caller, .rotateOwnCredential)
            let credential = try await devices.rotateCredential(familyID: caller.familyID, deviceID: caller.deviceID)
            return CredentialResponse(credential: credential.token)
        }
    }

    private func update(_ request: Request, _ context: FamilySyncRequestContext, target: UUID) async throws -> DeviceBody {
        let caller = try context.requireDevice()
        let body = try await request.decode(as: UpdateDeviceRequest.self, context: context)
        var members = Set<AccessPolicy.DeviceMember>()
        if body.name != nil { members.insert(.name) }
        if body.childName != nil { members.insert(.childName) }
        if body.timeZone != nil { members.insert(.timeZone) }
        guard !members.isEmpty else {
            throw FamilySyncError.badRequest("Send at least one of name, childName, timeZone.")
        }
        try AccessPolicy.check(caller, .updateDevice(target: target, members: members))
        let device = try await devices.update(
            familyID: caller.familyID, deviceID: target,
            name: try body.name.map { name throws(FamilySyncError) in try Validation.name(name, field: "name") },
            childName: try body.childName.map { name throws(FamilySyncError) in try Validation.name(name, field: "childName") },
            timeZone: try body.timeZone.map { zone throws(FamilySyncError) in try Validation.timeZone(zone, field: "timeZone") }
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
