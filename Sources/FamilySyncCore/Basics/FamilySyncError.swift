/// The one error type of FamilySync. Every failure that reaches a client is one of these,
/// carrying a code of PROTOCOL §1.1; the server maps codes to HTTP statuses in one table
/// (`FamilySyncError+HTTP.swift` in FamilySyncServer).
public struct FamilySyncError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable, Codable {
        case badRequest = "BAD_REQUEST"
        case badChangeToken = "BAD_CHANGE_TOKEN"
        case authenticationRequired = "AUTHENTICATION_REQUIRED"
        case accessDenied = "ACCESS_DENIED"
        case notFound = "NOT_FOUND"
        /// Not in PROTOCOL §1.1's table: a known path asked with a method it does not serve.
        case methodNotAllowed = "METHOD_NOT_ALLOWED"
        case zoneNotFound = "ZONE_NOT_FOUND"
        case conflict = "CONFLICT"
        case exists = "EXISTS"
        case changeTokenExpired = "CHANGE_TOKEN_EXPIRED"
        case pairingExpired = "PAIRING_EXPIRED"
        /// A request body that did not arrive at the minimum pace (§1.3); the connection is closed.
        case requestTimeout = "REQUEST_TIMEOUT"
        case limitExceeded = "LIMIT_EXCEEDED"
        /// An `Idempotency-Key` sent again with another request (§1.2.1).
        case idempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED"
        case throttled = "THROTTLED"
        case tryAgainLater = "TRY_AGAIN_LATER"
        case internalError = "INTERNAL_ERROR"
    }

    public var code: Code
    /// A human-readable sentence. Never carries SQL, stack traces or another family's data.
    public var reason: String
    /// The request member at fault, as a path (`records[3].sessionEnd`), where one applies.
    public var field: String?
    /// Seconds a client should wait before retrying, for `THROTTLED` and `TRY_AGAIN_LATER`.
    public var retryAfter: Int?

    public init(_ code: Code, _ reason: String, field: String? = nil, retryAfter: Int? = nil) {
        self.code = code
        self.reason = reason
        self.field = field
        self.retryAfter = retryAfter
    }

    public var description: String {
        var text = "\(code.rawValue): \(reason)"
        if let field { text += " (field \(field))" }
        return text
    }
}

extension FamilySyncError {
    public static func badRequest(_ reason: String, field: String? = nil) -> Self {
        .init(.badRequest, reason, field: field)
    }

    public static func notFound(_ reason: String = "Not found.") -> Self {
        .init(.notFound, reason)
    }

    public static func limitExceeded(_ reason: String, field: String? = nil) -> Self {
        .init(.limitExceeded, reason, field: field)
    }

    /// The database cannot be reached or the server is stopping; clients retry after `retryAfter` seconds.
    public static func unavailable(_ reason: String = "The service is temporarily unavailable.", retryAfter: Int = 2) -> Self {
        .init(.tryAgainLater, reason, retryAfter: retryAfter)
    }

    /// A transaction the database rolled back as colliding with another (a deadlock, a
    /// serialization failure): nothing of it happened, and sent again it goes through.
    public static let collided = unavailable("The request collided with another; retry it.", retryAfter: 1)

    /// A bug. The reason shown to clients is fixed so that nothing internal leaks.
    public static let internalError = Self(.internalError, "An internal error occurred.")
}
