import FamilySyncCore
import FamilySyncPostgres
import Hummingbird

/// Turns `Authorization: Bearer <credential>` into the authenticated device of the context.
/// Missing, malformed, unknown, rotated and revoked credentials are all the same 401; a device
/// past its budget of requests (`DeviceRateLimiter`) is `429 THROTTLED`.
package struct AuthenticationMiddleware: RouterMiddleware {
    package typealias Context = FamilySyncRequestContext

    let devices: PostgresDeviceStore
    let limiter: DeviceRateLimiter

    package init(devices: PostgresDeviceStore, limiter: DeviceRateLimiter) {
        self.devices = devices
        self.limiter = limiter
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let presented = request.bearerToken, let credential = DeviceCredential(parsing: presented),
            let device = try await devices.authenticate(credential)
        else {
            throw FamilySyncError(.authenticationRequired, "A valid device credential is required (Authorization: Bearer …).")
        }
        if let retryAfter = limiter.take(device.deviceID) {
            throw FamilySyncError(.throttled, "This device has sent too many requests; retry in \(retryAfter) s.", retryAfter: retryAfter)
        }
        var context = context
        // What the request changes is written as this device's (`context.writer`, §15.4).
        context.device = device
        return try await RequestLogMetadata.$deviceID.withValue(device.deviceID.lowercased) { try await next(request, context) }
    }
}

extension Request {
    /// The token of `Authorization: Bearer <token>`; the scheme name is case-insensitive
    /// (RFC 7235 §2.1).
    var bearerToken: String? {
        guard let header = headers[.authorization], header.utf8.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        // Spaces and tabs around the token, trimmed by hand: Foundation's trimming was 2 % of a
        // quiet heartbeat's CPU (Benchmarks/README.md, "The floor").
        let token = header.utf8.dropFirst(7).drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        let end = token.lastIndex { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        return end.map { String(Substring(token[...$0])) } ?? ""
    }
}
