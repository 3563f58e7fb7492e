import FamilySyncCore
import FamilySyncPostgres
import Hummingbird
import NIOCore

/// The request context of every FamilySync route.
public struct FamilySyncRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// `X-Request-Id` of this request: the client's, or one made by `RequestIDMiddleware`.
    public var requestID: String = ""
    /// Set from the server's limits by `BodyLimitMiddleware`; Hummingbird's body collection and
    /// decoding stop at this many bytes.
    public var maxBodyBytes: Int = Limits.defaultMaxBodyBytes
    /// The client's IP address, the key of per-client rate limits: the peer's, or the one a
    /// trusted proxy forwarded (`ForwardedClientMiddleware`).
    public internal(set) var clientAddress: String?
    /// The bucket of the per-address limits `clientAddress` counts in (`AddressBlock`).
    public var addressKey: String { AddressBlock.key(of: clientAddress) }
    /// Set by `AuthenticationMiddleware` on the routes that need a credential.
    public var device: AuthenticatedDevice?
    /// Set by `IdempotencyMiddleware` for a request sent with an `Idempotency-Key` (§1.2.1).
    public var idempotencyClaim: IdempotencyClaim?
    /// A request the dashboard made in this process (`InProcessTransport`): no connection of its
    /// own to watch, so a held poll is ended by its caller's cancellation instead.
    public var inProcess = false
    /// The request's connection: a held poll watches it (`ConnectionEndWatcher`) to end when its
    /// client goes away.
    var connection: (any Channel)?

    /// Request bodies are decoded strictly (PROTOCOL §1), responses written as the wire writes JSON.
    public var requestDecoder: WireRequestDecoder { WireRequestDecoder() }
    public var responseEncoder: WireResponseEncoder { WireResponseEncoder() }

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.clientAddress = source.channel.remoteAddress?.ipAddress
        self.connection = source.channel
    }

    public var maxUploadSize: Int { maxBodyBytes }

    /// "METHOD /path/{param}" as the router names the route `request` matched (its path when none
    /// did): how `IdempotencyKey.routes` and `BusyFamilyRefusal.routes` name routes.
    func route(of request: Request) -> String {
        "\(request.method) \(endpointPath ?? request.uri.path)"
    }

    /// Who the request's changes are written as: its device, from its address (§15.4), with its
    /// idempotency key; the server where no device is authenticated.
    public var writer: ChangeWriter {
        ChangeWriter(actor: device.map { AuditActor($0, address: clientAddress) } ?? .server, claim: idempotencyClaim)
    }

    /// The authenticated device; `AUTHENTICATION_REQUIRED` on a route that forgot the middleware.
    public func requireDevice() throws(FamilySyncError) -> AuthenticatedDevice {
        guard let device else { throw FamilySyncError(.authenticationRequired, "A device credential is required.") }
        return device
    }
}
