import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Hummingbird

/// `POST /v1/families` and `DELETE /v1/families/me` (PROTOCOL §2).
struct FamilyController {
    let families: PostgresFamilyStore

    func addOpenRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.post("families", use: create)
    }

    func addAuthenticatedRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.delete("families/me", use: delete)
    }

    /// `POST /v1/families`: a family and its first parent device, with its credential.
    @Sendable func create(_ request: Request, context: FamilySyncRequestContext) async throws -> EditedResponse<CreateFamilyResponse> {
        let body = try await request.decode(as: CreateFamilyRequest.self, context: context)
        let registration = try DeviceRegistrationInput(body.device, field: "device")
        let (device, credential) = try await families.create(parentName: registration.name, platform: registration.platform, timeZone: registration.timeZone)
        return EditedResponse(
            status: .created, response: CreateFamilyResponse(family: .init(id: device.familyID), device: DeviceBody(device), credential: credential.token)
        )
    }

    /// `DELETE /v1/families/me`: the family and everything it holds.
    @Sendable func delete(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .deleteFamily)
        try await families.delete(familyID: caller.familyID)
        return Response(status: .noContent)
    }
}

/// A `DeviceRegistration` after validation.
struct DeviceRegistrationInput {
    var name: String
    var platform: DevicePlatform
    var timeZone: String

    init(_ registration: DeviceRegistration, field: String) throws(FamilySyncError) {
        name = try Validation.name(registration.name, field: "\(field).name")
        platform = registration.platform
        timeZone = try Validation.timeZone(registration.timeZone, field: "\(field).timeZone")
    }
}
