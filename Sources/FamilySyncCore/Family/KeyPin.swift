/// The SHA-256 of a server's public key (its DER SubjectPublicKeyInfo), as a pairing's QR payload
/// and the `FamilySync-Key-Pins` header carry it (PROTOCOL §3.2): base64url without padding.
/// A device paired under pins accepts, for that server, exactly the keys they name.
public struct KeyPin: Hashable, Sendable, CustomStringConvertible {
    public let digest: [UInt8]

    public init?(digest: [UInt8]) {
        guard digest.count == 32 else { return nil }
        self.digest = digest
    }

    public init?(_ text: some StringProtocol) {
        guard text.utf8.count == 43, let bytes = Base64URL.decode(String(text)) else { return nil }
        self.init(digest: bytes)
    }

    public var description: String { Base64URL.encode(digest) }
}

/// A list of pins as one text: the header's value and the QR payload's `k`.
public enum KeyPins {
    /// At most this many in one list: the key served and the next, with room for an operator
    /// who stages two.
    public static let limit = 4

    /// `text`'s pins, in order and without repeats; nil unless every item is a pin and there are
    /// one to `limit`.
    public static func parse(_ text: some StringProtocol) -> [KeyPin]? {
        var pins: [KeyPin] = []
        for item in Substring(text).split(separator: ",", omittingEmptySubsequences: false) {
            guard let pin = KeyPin(item.trimmingSpaces) else { return nil }
            if !pins.contains(pin) { pins.append(pin) }
        }
        return (1...limit).contains(pins.count) ? pins : nil
    }

    public static func text(_ pins: [KeyPin]) -> String {
        pins.map(\.description).joined(separator: ", ")
    }

    /// The pins a device keeps after an answer, given those it held and the header's value: the
    /// server's list replaces the held one (it came over a connection a held pin verified), unless
    /// it is missing or cannot be read.
    public static func kept(held: [KeyPin], announced: String?) -> [KeyPin] {
        guard let announced, let pins = parse(announced) else { return held }
        return pins
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
