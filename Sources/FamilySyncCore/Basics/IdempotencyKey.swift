import Foundation

/// PROTOCOL §1.2.1: a write a device sends again after a lost answer, with the same
/// `Idempotency-Key`, gets the answer the first one got and has no second effect. The rules here
/// decide; the server's middleware reads and keeps the rows.
public enum IdempotencyKey {
    /// The header's name.
    public static let header = "Idempotency-Key"
    /// How long a key and its answer are kept, from the first request.
    public static let lifetime: TimeInterval = 24 * 3600
    /// How long a key whose write committed may go without its answer before it is taken for an
    /// answer lost (its instance stopped between the commit and keeping it), not one in progress.
    public static let answerGrace: TimeInterval = 30

    /// The routes that take a key (as the router names them): a device's writes that it repeats
    /// after a lost answer. Not the writes whose answer carries a secret (a credential, a pairing
    /// token, a recovery code), which are never kept; not the reads sent as POST.
    public static let routes = Set(access.keys)

    /// What each route that takes a key asks of its caller's role and status: judged before the
    /// key is looked up, so that a caller who may not make the request is told `403`, whatever
    /// its key was used for before (not `422` for a key it used on another route).
    public static let access: [String: AccessPolicy.Action] = [
        "POST /v1/zones/{zone}/records/modify": .writeRecords,
        "POST /v1/devices/{id}/commands": .sendCommand, "POST /v1/commands/{id}/result": .reportCommandResult,
        "POST /v1/commands/{id}/cancel": .sendCommand,
        "PUT /v1/members/{id}/pin": .setParentPIN, "DELETE /v1/members/{id}/pin": .setParentPIN,
        "POST /v1/usage": .uploadUsage, "POST /v1/usage/totals": .uploadUsage,
        "POST /v1/alerts": .reportAlert, "POST /v1/alerts/{id}/dismiss": .dismissAlert,
        "POST /v1/devices/me/health": .reportHealth,
    ]

    /// A key is 1–255 characters of `[A-Za-z0-9._:-]` (a UUID is one); `BAD_REQUEST` naming the
    /// header otherwise.
    public static func validate(_ key: String) throws(FamilySyncError) -> String {
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy(isKeyByte) else {
            throw .badRequest("\(header) must be 1 to 255 characters of letters, digits, '.', '_', ':' and '-'.", field: header)
        }
        return key
    }

    private static func isKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"): true
        default: false
        }
    }

    /// The key on a route that does not take one: refused rather than ignored, so a client never
    /// believes a request protected that is not.
    public static func notAccepted(on route: String) -> FamilySyncError {
        .badRequest("\(route) does not take an \(header).", field: header)
    }

    /// What a device's key holds: the request it keyed, when, and the answer once kept.
    public struct Stored: Sendable, Equatable {
        public var requestHash: [UInt8]
        public var createdAt: Date
        public var answer: Answer?

        public init(requestHash: [UInt8], createdAt: Date, answer: Answer?) {
            self.requestHash = requestHash
            self.createdAt = createdAt
            self.answer = answer
        }
    }

    /// An answer as it went out.
    public struct Answer: Sendable, Equatable {
        public var status: Int
        public var contentType: String?
        public var body: [UInt8]

        public init(status: Int, contentType: String?, body: [UInt8]) {
            self.status = status
            self.contentType = contentType
            self.body = body
        }
    }

    /// What to do with a request that carries a key.
    public enum Decision: Sendable, Equatable {
        /// A new key (or one past its lifetime): run the request, keeping the key with its write.
        case run
        /// The same request answered before: this answer again, nothing done.
        case replay(Answer)
        /// Refused, nothing done: another request under the key, or its write still in progress,
        /// or its answer lost.
        case refuse(FamilySyncError)
    }

    public static func decide(stored: Stored?, requestHash: [UInt8], now: Date) -> Decision {
        guard let stored, now.timeIntervalSince(stored.createdAt) < lifetime else { return .run }
        guard constantTimeEquals(stored.requestHash, requestHash) else {
            return .refuse(FamilySyncError(
                .idempotencyKeyReused, "This \(header) was sent with another request; a key names one request (send a new key for a new one).", field: header
            ))
        }
        if let answer = stored.answer { return .replay(answer) }
        if now.timeIntervalSince(stored.createdAt) < answerGrace {
            return .refuse(FamilySyncError(
                .conflict, "The request first sent with this \(header) is still being answered; send it again in a moment.", field: header, retryAfter: 1
            ))
        }
        // Its write committed (the key is written with it), but the answer was never kept.
        return .refuse(FamilySyncError(
            .conflict, "The request first sent with this \(header) was applied, but its answer was not kept; read the current state instead.", field: header
        ))
    }

    /// Whether an answer is kept for the key: a success only. A refused request changes nothing,
    /// its key included (§1.1), so sent again it is judged again, on what is stored then.
    public static func keeps(status: Int) -> Bool {
        (200..<300).contains(status)
    }

    /// The largest answer kept; a larger one goes out unkept (its key then answers "not kept").
    public static let maximumAnswerBytes = 8 * 1024 * 1024
}
