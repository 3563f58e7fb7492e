import Crypto
import FamilySyncCore
import FamilySyncPostgres
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// PROTOCOL §1.2.1: a write sent again with its `Idempotency-Key` gets the first answer again and
/// does nothing twice. The key is written by the change log in the transaction of the request's
/// write (`IdempotencyClaim`), so it exists exactly when the write committed; the answer is kept
/// with it once the handler has made it. Inside `AuthenticationMiddleware`: keys are per device.
package struct IdempotencyMiddleware: RouterMiddleware {
    package typealias Context = FamilySyncRequestContext

    let keys: PostgresIdempotencyKeys
    let keyring: ChangeTokenKeyring
    let clock: any WallClock

    package init(keys: PostgresIdempotencyKeys, keyring: ChangeTokenKeyring, clock: any WallClock) {
        self.keys = keys
        self.keyring = keyring
        self.clock = clock
    }

    static let headerName = HTTPField.Name(IdempotencyKey.header)!
    static let replayedName = HTTPField.Name("Idempotent-Replayed")!

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let sent = request.headers[values: Self.headerName]
        guard !sent.isEmpty else { return try await next(request, context) }
        let route = context.route(of: request)
        guard let action = IdempotencyKey.access[route] else { throw IdempotencyKey.notAccepted(on: route) }
        guard sent.count == 1 else { throw FamilySyncError.badRequest("Send one \(IdempotencyKey.header).", field: IdempotencyKey.header) }
        let key = try IdempotencyKey.validate(sent[0])
        let device = try context.requireDevice()
        // Access before the key: a request its caller may not make is refused as it is without one.
        try AccessPolicy.check(device, action)
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        let claim = IdempotencyClaim(
            familyID: device.familyID, deviceID: device.deviceID, key: key, requestHash: try requestHash(request, body: body), requestPath: request.uri.path,
            now: clock.now()
        )
        if let earlier = try await earlierAnswer(claim) { return earlier }
        let response: Response
        var context = context
        context.idempotencyClaim = claim
        do {
            response = try await next(request, context)
        } catch is IdempotencyClaim.Taken {
            // The same request committed first, between the read above and this one's lock.
            if let earlier = try await earlierAnswer(claim) { return earlier }
            throw FamilySyncError(.conflict, "The request first sent with this \(IdempotencyKey.header) is still being answered; send it again in a moment.", field: IdempotencyKey.header, retryAfter: 1)
        }
        guard IdempotencyKey.keeps(status: Int(response.status.code)) else { return response }
        return try await kept(response, for: claim, context: context)
    }

    /// The answer kept for the key, or a refusal; nil for a key to run under.
    private func earlierAnswer(_ claim: IdempotencyClaim) async throws -> Response? {
        let stored = try await keys.stored(familyID: claim.familyID, deviceID: claim.deviceID, key: claim.key)
        switch IdempotencyKey.decide(stored: stored, requestHash: claim.requestHash, now: claim.now) {
        case .run:
            return nil
        case .refuse(let error):
            throw error
        case .replay(let answer):
            var headers: HTTPFields = [Self.replayedName: "true"]
            if let contentType = answer.contentType { headers[.contentType] = contentType }
            return Response(status: .init(code: answer.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
    }

    /// Keeps `response`'s answer with the key and returns it whole. An answer that cannot be kept
    /// (too large, or the database gone since the write) still goes out: the write is done, and its
    /// key answers "not kept" to a resend.
    private func kept(_ response: Response, for claim: IdempotencyClaim, context: Context) async throws -> Response {
        var response = response
        guard let length = response.body.contentLength, length <= IdempotencyKey.maximumAnswerBytes else { return response }
        let collected = CollectedBody()
        try await response.body.write(collected)
        let bytes = Array(collected.buffer.readableBytesView)
        response.body = ResponseBody(byteBuffer: collected.buffer)
        let answer = IdempotencyKey.Answer(status: Int(response.status.code), contentType: response.headers[.contentType], body: bytes)
        do {
            try await keys.keep(answer, for: claim)
        } catch {
            context.logger.error("an idempotency key's answer was not kept", metadata: ["error": "\(String(reflecting: error))"])
        }
        return response
    }

    /// HMAC-SHA-256 of the method, the target and the body, under a key derived from the server's
    /// secret: the same request hashes the same on every instance, and a body (a PIN) cannot be
    /// guessed back from its hash.
    private func requestHash(_ request: Request, body: ByteBuffer) throws(FamilySyncError) -> [UInt8] {
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: try keyring.current(), info: Data("FamilySync idempotency request".utf8), outputByteCount: 32)
        var mac = HMAC<SHA256>(key: key)
        mac.update(data: Data("\(request.method) \(request.uri.path)?\(request.uri.query ?? "")\n".utf8))
        mac.update(data: Data(body.readableBytesView))
        return Array(mac.finalize())
    }
}
