import FamilySyncCore
import FamilySyncPostgres
import Hummingbird
import Logging
import NIOCore

/// Turns every error a route throws into PROTOCOL §1.1's JSON, so no response is ever empty or
/// carries internals. Errors that are not `FamilySyncError` are translated here, in one place.
package struct ErrorMiddleware: RouterMiddleware {
    package typealias Context = FamilySyncRequestContext

    /// What the router serves, to tell a wrong method (405) from a wrong path (404).
    let routes: RouteTable
    let shed: ShedMetrics

    package init(routes: RouteTable, shed: ShedMetrics) {
        self.routes = routes
        self.shed = shed
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let (pattern, allowed) = routes.match(request.uri.path) else {
                return FamilySyncError.notFound("No resource at \(request.method) \(request.uri.path).").response()
            }
            // Metrics count it under its route, not under "NotFound" (the path label is a shared box).
            context.coreContext.endpointPath.value = pattern
            let list = allowed.map(\.rawValue).joined(separator: ", ")
            return FamilySyncError(.methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path); allowed: \(list).")
                .response(headers: [.allow: list])
        } catch {
            return response(for: error, request: request, context: context)
        }
    }

    private func response(for error: any Error, request: Request, context: Context) -> Response {
        Self.response(for: error, request: request, logger: context.logger, shed: shed)
    }

    /// §1.1's answer to an error, logged and, when it sheds load, counted: for the chain's errors,
    /// and for a parked poll's after the chain has returned (`PollController`).
    static func response(for error: any Error, request: Request, logger: Logger, shed metrics: ShedMetrics?) -> Response {
        let mapped = translate(error, request: request)
        let shed = TryAgainReason(mapped)
        if let shed { metrics?.count(shed) }
        if shed == .familyBusy || shed == .poolExhausted {
            // Load, not a fault: counted above, and one line per shed request would flood the log.
            logger.notice("request shed", metadata: ["reason": "\(shed!.rawValue)"])
        } else if mapped.code == .internalError || mapped.code == .tryAgainLater {
            logger.error("request failed", metadata: ["error": "\(String(reflecting: error))", "code": "\(mapped.code.rawValue)"])
        } else {
            logger.debug("request rejected", metadata: ["error": "\(mapped)"])
        }
        return mapped.response()
    }

    static func translate(_ error: any Error, request: Request) -> FamilySyncError {
        switch error {
        case let error as FamilySyncError:
            return error
        case let error as HTTPError:
            return translate(error, request: request)
        case is NIOTooManyBytesError:
            // A body read elsewhere than the context's decoder that passed its limit.
            return .limitExceeded("The request body is larger than the server accepts.")
        case let error as DecodingError:
            return .badRequest(error.reasonForClient, field: error.fieldPath)
        case is CancellationError:
            return .unavailable("The server is shutting down.")
        default:
            return DatabaseErrorTranslation.translate(error) ?? .internalError
        }
    }

    private static func translate(_ error: HTTPError, request: Request) -> FamilySyncError {
        // .notFound never gets here: `handle` answers it, as 404 or 405.
        switch error.status {
        case .contentTooLarge:
            return .limitExceeded("The request body is larger than the server accepts.")
        case .badRequest:
            return .badRequest("The request is malformed.")
        case .methodNotAllowed:
            return .init(.methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path).")
        case .unauthorized:
            return .init(.authenticationRequired, "Authentication is required.")
        case .forbidden:
            return .init(.accessDenied, "Access denied.")
        case .serviceUnavailable:
            return .unavailable()
        default:
            return .internalError
        }
    }
}

extension DecodingError {
    /// The coding path as PROTOCOL §1.1's `field`: `records[3].sessionEnd`.
    var fieldPath: String? {
        let path: [any CodingKey]
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
        @unknown default:
            return nil
        }
        guard !path.isEmpty else { return nil }
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }

    var reasonForClient: String {
        switch self {
        case .typeMismatch(let type, _): "A value has the wrong type; expected \(Self.expected(type))."
        case .valueNotFound: "A required value is null."
        case .keyNotFound(let key, _): "The member '\(key.stringValue)' is required."
        case .dataCorrupted(let context) where context.codingPath.isEmpty: "The body is not valid JSON."
        case .dataCorrupted: "A value is invalid."
        @unknown default: "The request body could not be read."
        }
    }

    /// A type as a client knows it: "an integer", "a number", else its name.
    static func expected(_ type: Any.Type) -> String {
        if type is any FixedWidthInteger.Type { return "an integer" }
        if type is any BinaryFloatingPoint.Type { return "a number" }
        return "\(type)"
    }
}
