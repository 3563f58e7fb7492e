import FamilySyncCore

/// PROTOCOL §1.1: `{"error": {"code", "reason", "field"?, "retryAfter"?}}`.
public struct ErrorResponse: Codable, Sendable, Equatable {
    public struct Body: Codable, Sendable, Equatable {
        public var code: String
        public var reason: String
        public var field: String?
        public var retryAfter: Int?

        package enum CodingKeys: CodingKey, CaseIterable { case code, field, reason, retryAfter }

        public init(code: String, reason: String, field: String? = nil, retryAfter: Int? = nil) {
            self.code = code
            self.reason = reason
            self.field = field
            self.retryAfter = retryAfter
        }
    }

    public var error: Body

    public init(error: Body) {
        self.error = error
    }

    public init(_ error: FamilySyncError) {
        self.error = Body(code: error.code.rawValue, reason: error.reason, field: error.field, retryAfter: error.retryAfter)
    }

    /// The domain error this body describes; an unknown code (from a newer server) reads as `INTERNAL_ERROR`.
    public var familySyncError: FamilySyncError {
        FamilySyncError(
            FamilySyncError.Code(rawValue: error.code) ?? .internalError,
            error.reason,
            field: error.field,
            retryAfter: error.retryAfter
        )
    }
}
