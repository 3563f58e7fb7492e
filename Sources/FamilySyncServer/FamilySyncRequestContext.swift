import FamilySyncCore
import Hummingbird

/// The request context of every FamilySync route.
public struct FamilySyncRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// `X-Request-Id` of this request: the client's, or one made by `RequestIDMiddleware`.
    public var requestID: String = ""
    /// Set from the server's limits by `BodyLimitMiddleware`; Hummingbird's body collection and
    /// decoding stop at this many bytes.
    public var maxBodyBytes: Int = Limits.defaultMaxBodyBytes

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }

    public var maxUploadSize: Int { maxBodyBytes }
}
