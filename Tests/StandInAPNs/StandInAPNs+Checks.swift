import Foundation
import JWTKit
import SwiftASN1
import X509
import Crypto

/// What the stand-in checks of a request, as APNs does, and the answers it gives.
extension StandInAPNs {
    /// The claims of an APNs provider token; the time checks are `check`'s, against `now`.
    struct ProviderClaims: JWTPayload {
        var iss: IssuerClaim?
        var iat: IssuedAtClaim?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// Why APNs would refuse the request, or nil when it passes; the order is path, token,
    /// headers, payload, so a request with several faults gets the first.
    func check(
        method: String, token: String, headers: [String: String], jwt: String?,
        claims: (header: JWTHeader, payload: ProviderClaims, signature: Data)?, body: Data, payload: JSON?
    ) async -> (Int, String)? {
        let isHex = !token.isEmpty && token.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
        guard isHex else { return (404, "BadPath") }
        guard method == "POST" else { return (405, "MethodNotAllowed") }

        guard headers["authorization"] != nil else { return (403, "MissingProviderToken") }
        guard let jwt, let claims, claims.header.alg == "ES256", claims.header.kid == keyID else { return (403, "InvalidProviderToken") }
        guard (try? await keys.verify(jwt, as: ProviderClaims.self)) != nil else { return (403, "InvalidProviderToken") }
        guard claims.payload.iss?.value == teamID, let issuedAt = claims.payload.iat?.value else { return (403, "InvalidProviderToken") }
        let now = now()
        guard issuedAt >= now.addingTimeInterval(-3600) else { return (403, "ExpiredProviderToken") }
        guard issuedAt <= now.addingTimeInterval(60) else { return (403, "InvalidProviderToken") }

        guard let requestTopic = headers["apns-topic"] else { return (400, "MissingTopic") }
        guard requestTopic == topic else { return (400, "BadTopic") }
        guard let pushType = headers["apns-push-type"], pushType == "background" || pushType == "alert" else { return (400, "InvalidPushType") }
        // APNs takes a missing priority as 10, which a background push may not have.
        let priority = headers["apns-priority"] ?? "10"
        guard priority == "5" || priority == "10", pushType != "background" || priority == "5" else { return (400, "BadPriority") }
        if let expiration = headers["apns-expiration"] {
            guard !expiration.isEmpty, expiration.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else { return (400, "BadExpirationDate") }
        }
        if let id = headers["apns-id"] {
            guard UUID(uuidString: id) != nil else { return (400, "BadMessageId") }
        }

        guard body.count <= 4096 else { return (413, "PayloadTooLarge") }
        // Not JSON, or JSON without an `aps` object, counts as no payload.
        guard case .object? = payload?["aps"] else { return (400, "PayloadEmpty") }
        return nil
    }
}

extension StandInAPNs.Answer {
    /// APNs' status and reason for this answer; nil reason for a 200, which has no body.
    var reply: (Int, String?) {
        switch self {
        case .ok: (200, nil)
        case .badDeviceToken: (400, "BadDeviceToken")
        case .unregistered: (410, "Unregistered")
        case .tooManyRequests: (429, "TooManyRequests")
        case .unavailable: (503, "ServiceUnavailable")
        case .internalError: (500, "InternalServerError")
        }
    }
}
