import FamilySyncCore
import Testing

@Suite struct FamilySyncErrorTests {
    @Test func codesAreThoseOfProtocolSection1_1() {
        let codes = Set(FamilySyncError.Code.allCases.map(\.rawValue))
        #expect(codes == [
            "BAD_REQUEST", "BAD_CHANGE_TOKEN", "AUTHENTICATION_REQUIRED", "ACCESS_DENIED", "NOT_FOUND",
            "METHOD_NOT_ALLOWED", "ZONE_NOT_FOUND", "CONFLICT", "EXISTS", "CHANGE_TOKEN_EXPIRED",
            "PAIRING_EXPIRED", "REQUEST_TIMEOUT", "LIMIT_EXCEEDED", "IDEMPOTENCY_KEY_REUSED", "THROTTLED", "TRY_AGAIN_LATER", "INTERNAL_ERROR",
        ])
    }

    @Test func unavailableCarriesRetryAfter() {
        let error = FamilySyncError.unavailable()
        #expect(error.code == .tryAgainLater)
        #expect(error.retryAfter == 2)
    }

    @Test func internalErrorReasonIsFixed() {
        #expect(FamilySyncError.internalError.reason == "An internal error occurred.")
    }

    @Test func descriptionNamesCodeReasonAndField() {
        let error = FamilySyncError.badRequest("Too long.", field: "device.name")
        #expect(error.description == "BAD_REQUEST: Too long. (field device.name)")
    }
}
