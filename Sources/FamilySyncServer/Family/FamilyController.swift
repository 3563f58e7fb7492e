import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `POST /v1/families`, `DELETE /v1/families/me` (PROTOCOL §2) and getting a family back (§13).
package struct FamilyController {
    package let families: PostgresFamilyStore
    package let apple: any AppleIdentityChecking
    /// Wrong recovery codes and tokens, per client address: like wrong pairing tokens, a few and
    /// then 429 for a while.
    package let recoveryFailures: RateLimiter<String>

    package init(families: PostgresFamilyStore, apple: any AppleIdentityChecking, recoveryFailures: RateLimiter<String>) {
        self.families = families
        self.apple = apple
        self.recoveryFailures = recoveryFailures
    }

    package func addOpenRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.post("families", use: create)
            .post("families/recover", use: recover)
    }

    package func addAuthenticatedRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.delete("families/me", use: delete)
            .post("families/me/recovery-code", use: issueRecoveryCode)
            .post("account/apple", use: linkAppleAccount)
    }

    /// `POST /v1/families`: a family and its first parent device, with its credential and the
    /// family's recovery code (shown this once).
    @Sendable func create(_ request: Request, context: FamilySyncRequestContext) async throws -> EditedResponse<CreateFamilyResponse> {
        let body = try await request.decode(as: CreateFamilyRequest.self, context: context)
        let registration = try DeviceRegistrationInput(body.device, field: "device")
        let (device, credential, code) = try await families.create(parentName: registration.name, platform: registration.platform, timeZone: registration.timeZone)
        return EditedResponse(
            status: .created,
            response: CreateFamilyResponse(family: .init(id: device.familyID), device: DeviceBody(device), credential: credential.token, recoveryCode: code.display)
        )
    }

    /// `POST /v1/families/recover`: a new parent device of the family a recovery code or a linked
    /// Apple account names, and a new recovery code. A wrong code is 404, whether or not the family
    /// exists, and counts against the address.
    @Sendable func recover(_ request: Request, context: FamilySyncRequestContext) async throws -> EditedResponse<CreateFamilyResponse> {
        // The attempt's token is taken before it is tried and given back if it did not count, so
        // that concurrent wrong attempts are held to the limit as sequential ones are.
        let address = context.addressKey
        if let retryAfter = recoveryFailures.take(key: address) {
            throw FamilySyncError(.throttled, "Too many failed recoveries from this address; retry in \(retryAfter) s.", retryAfter: retryAfter)
        }
        var counted = false
        defer { if !counted { recoveryFailures.giveBack(key: address) } }
        let body = try await request.decode(as: RecoverFamilyRequest.self, context: context)
        let registration = try DeviceRegistrationInput(body.device, field: "device")
        do {
            let proof: PostgresFamilyStore.RecoveryProof
            switch (body.recoveryCode, body.appleIdentityToken) {
            case (let text?, nil):
                if body.nonce != nil { throw FamilySyncError.badRequest("A nonce goes with an Apple identity token.", field: "nonce") }
                // A code that cannot be one is answered as a wrong one.
                guard let code = RecoveryCode(parsing: text) else { throw FamilySyncError.notFound("No family answers to this recovery.") }
                proof = .code(code)
            case (nil, let token?):
                guard let nonce = body.nonce else { throw FamilySyncError.badRequest("An Apple identity token comes with its nonce.", field: "nonce") }
                proof = .appleAccount(try await apple.subject(of: token, nonce: nonce, field: "appleIdentityToken"))
            default:
                throw FamilySyncError.badRequest("Send recoveryCode, or appleIdentityToken with nonce.")
            }
            let recovery = try await families.recover(proof, name: registration.name, platform: registration.platform, timeZone: registration.timeZone, as: context.writer)
            return EditedResponse(
                status: .created,
                response: CreateFamilyResponse(
                    family: .init(id: recovery.device.familyID), device: DeviceBody(recovery.device), credential: recovery.credential.token,
                    recoveryCode: recovery.recoveryCode.display
                )
            )
        } catch let error as FamilySyncError where RecoveryCode.countsTowardLimit(error, proofField: "appleIdentityToken") {
            counted = true
            throw error
        }
    }

    /// `POST /v1/families/me/recovery-code`: a new code; the old one stops working.
    @Sendable func issueRecoveryCode(_ request: Request, context: FamilySyncRequestContext) async throws -> RecoveryCodeResponse {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .manageRecovery)
        return RecoveryCodeResponse(recoveryCode: try await families.issueRecoveryCode(familyID: caller.familyID).display)
    }

    /// `POST /v1/account/apple`: links a Sign in with Apple account to the caller's member.
    @Sendable func linkAppleAccount(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .manageRecovery)
        let body = try await request.decode(as: LinkAppleAccountRequest.self, context: context)
        guard let memberID = caller.memberID else { throw FamilySyncError(.conflict, "This device has no member yet.") }
        let subject = try await apple.subject(of: body.identityToken, nonce: body.nonce, field: "identityToken")
        try await families.linkAppleAccount(subject, familyID: caller.familyID, memberID: memberID, as: context.writer)
        return Response(status: .noContent)
    }

    /// `DELETE /v1/families/me`: the family and everything it holds.
    @Sendable func delete(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .deleteFamily)
        try await families.delete(familyID: caller.familyID, as: context.writer)
        return Response(status: .noContent)
    }
}
