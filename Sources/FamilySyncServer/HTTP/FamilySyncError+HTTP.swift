import FamilySyncCore
import FamilySyncProtocol
import Foundation
import HTTPTypes
import Hummingbird

/// The one table from error codes to HTTP statuses (PROTOCOL §1.1).
extension FamilySyncError.Code {
    public var httpStatus: HTTPResponse.Status {
        switch self {
        case .badRequest, .badChangeToken: .badRequest
        case .authenticationRequired: .unauthorized
        case .accessDenied: .forbidden
        case .notFound, .zoneNotFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .conflict, .exists: .conflict
        case .changeTokenExpired, .pairingExpired: .gone
        case .requestTimeout: .requestTimeout
        case .limitExceeded: .contentTooLarge
        case .idempotencyKeyReused: .unprocessableContent
        case .throttled: .tooManyRequests
        case .tryAgainLater: .serviceUnavailable
        case .internalError: .internalServerError
        }
    }
}

extension FamilySyncError {
    /// The §1.1 JSON response, with `Retry-After` where the error carries one.
    public func response(headers extraHeaders: HTTPFields = [:]) -> Response {
        var headers = extraHeaders
        headers[.contentType] = "application/json; charset=utf-8"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        let data = (try? JSONEncoder.wire.encode(ErrorResponse(self))) ?? Data(#"{"error":{"code":"INTERNAL_ERROR","reason":"An internal error occurred."}}"#.utf8)
        return Response(status: code.httpStatus, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension JSONEncoder {
    /// Encodes every body: PROTOCOL §1's instants, sorted keys so that bodies are stable.
    static let wire = WireCoding.makeEncoder()
}

extension FamilySyncError {
    /// `error` as the API answers it (§1.1), as `ErrorMiddleware` maps it: for a route module
    /// that answers failures its own way (the dashboard, as pages).
    package init(answering error: any Error, to request: Request) {
        self = ErrorMiddleware.translate(error, request: request)
    }
}
