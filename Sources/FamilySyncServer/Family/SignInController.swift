import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `/v1/sign-ins…` and `POST /v1/pairings/sign-in` (PROTOCOL §3.1): a device that shows a code,
/// a parent device that takes it.
package struct SignInController {
    let signIns: PostgresSignInStore
    let clock: any WallClock
    /// The server's base URL for QR payloads.
    let publicURL: PublicURL
    /// Wrong codes taken, per family (`family:<id>`) and per client address: a parent credential
    /// in a loop could otherwise try a thousand codes a second against the codes being shown.
    let codeFailures: RateLimiter<String>

    package init(signIns: PostgresSignInStore, clock: any WallClock, publicURL: PublicURL, codeFailures: RateLimiter<String>) {
        self.signIns = signIns
        self.clock = clock
        self.publicURL = publicURL
        self.codeFailures = codeFailures
    }

    package func addOpenRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.post("sign-ins", use: start)
            .post("sign-ins/claim", use: claim)
    }

    package func addAuthenticatedRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.post("pairings/sign-in", use: take)
    }

    /// `POST /v1/sign-ins`: a code for the device to show, and its secret.
    @Sendable func start(_ request: Request, context: FamilySyncRequestContext) async throws -> EditedResponse<StartSignInResponse> {
        let body = try await request.decode(as: StartSignInRequest.self, context: context)
        let registration = try DeviceRegistrationInput(body.device, field: "device")
        let (signIn, secret) = try await signIns.start(name: registration.name, platform: registration.platform, timeZone: registration.timeZone)
        let payload = SignInQRPayload(serverURL: publicURL.of(request), code: signIn.code)
        return EditedResponse(
            status: .created, response: StartSignInResponse(signIn: SignInBody(signIn, at: clock.now()), secret: secret.token, qrPayload: payload.string)
        )
    }

    /// `POST /v1/sign-ins/claim`: waiting, or (once) the device's credential.
    @Sendable func claim(_ request: Request, context: FamilySyncRequestContext) async throws -> ClaimSignInResponse {
        let body = try await request.decode(as: ClaimSignInRequest.self, context: context)
        // A secret that does not parse cannot match: answered like a wrong one.
        guard let secret = SignInSecret(parsing: body.secret) else { throw PostgresSignInStore.wrongSecret }
        let now = clock.now()
        switch try await signIns.claim(secret, as: context.writer) {
        case .waiting(let signIn):
            return ClaimSignInResponse(signIn: SignInBody(signIn, at: now))
        case .claimed(let signIn, let acceptance):
            return ClaimSignInResponse(
                signIn: SignInBody(signIn, at: now), pairing: PairingBody(acceptance.pairing, at: now), device: DeviceBody(acceptance.device),
                credential: acceptance.credential.token
            )
        }
    }

    /// `POST /v1/pairings/sign-in`: a parent takes a shown code; the answer is the pairing, with
    /// the emoji the device will show.
    @Sendable func take(_ request: Request, context: FamilySyncRequestContext) async throws -> EditedResponse<PairingBody> {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .createPairing)
        let body = try await request.decode(as: TakeSignInRequest.self, context: context)
        let code: SignInCode
        switch (body.code, body.qrPayload) {
        case (let text?, nil):
            guard let parsed = SignInCode(parsing: text) else {
                throw FamilySyncError.badRequest("A sign-in code is eight letters and digits, such as K7QF-M2XA.", field: "code")
            }
            code = parsed
        case (nil, let payload?):
            code = try SignInQRPayload(parsing: payload).code
        default:
            throw FamilySyncError.badRequest("Send either code or qrPayload.", field: body.code == nil ? "code" : "qrPayload")
        }
        // Each attempt's tokens are taken before it is tried, and given back unless the code was
        // wrong: concurrent guesses are held to the limit as sequential ones are.
        let keys = ["family:\(caller.familyID.lowercased)", context.addressKey]
        var taken: [String] = []
        for key in keys {
            if let retryAfter = codeFailures.take(key: key) {
                for key in taken { codeFailures.giveBack(key: key) }
                throw FamilySyncError(.throttled, "Too many wrong sign-in codes; retry in \(retryAfter) s.", retryAfter: retryAfter)
            }
            taken.append(key)
        }
        do {
            let pairing = try await signIns.take(code: code, familyID: caller.familyID, parentDeviceID: caller.deviceID, as: context.writer)
            for key in taken { codeFailures.giveBack(key: key) }
            return EditedResponse(status: .created, response: PairingBody(pairing, at: clock.now()))
        } catch let error as FamilySyncError where error.code == .notFound {
            throw error
        } catch {
            for key in taken { codeFailures.giveBack(key: key) }
            throw error
        }
    }
}
