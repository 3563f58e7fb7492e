import FamilySyncCore
import HTTPTypes
import Hummingbird

/// Pairing under pins (PROTOCOL §3.2): the key served and the one staged to follow it, put in
/// every pairing's QR payload and announced in every answer, so that a device paired to a
/// self-signed certificate accepts exactly these keys.
package struct KeyPinning: Sendable, Equatable {
    let served: ServedCertificate
    /// The key of the certificate to be served next (`--tls-next-certificate`).
    let next: KeyPin?

    /// Holds `served` to these keys from now on (`ServedCertificate.keepPinned`).
    package init(served: ServedCertificate, next: KeyPin?) {
        self.served = served
        self.next = next
        served.keepPinned(next: next?.digest)
    }

    /// The key served now (read again when the files change), then the next.
    package var pins: [KeyPin] {
        let current = KeyPin(digest: served.current.publicKeyPin)!
        guard let next, next != current else { return [current] }
        return [current, next]
    }
}

/// Every answer names the keys a pinned device is to accept from now on (`FamilySync-Key-Pins`):
/// a device that connected by one of them takes the list as its own (`KeyPins.kept`), which is
/// how a key is announced before it is served.
package struct KeyPinsAnnouncedMiddleware: RouterMiddleware {
    package typealias Context = FamilySyncRequestContext

    let pinning: KeyPinning

    package init(_ pinning: KeyPinning) {
        self.pinning = pinning
    }

    package static let name = HTTPField.Name("FamilySync-Key-Pins")!

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[Self.name] = KeyPins.text(pinning.pins)
        return response
    }
}
