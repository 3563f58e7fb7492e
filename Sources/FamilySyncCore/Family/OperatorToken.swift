import Foundation

/// The operator's credential for the fleet's endpoints (PROTOCOL §10.1), given to `serve` and
/// kept only as its SHA-256: never a family's credential, and not stored in the database. A
/// presented token is compared by its hash in constant time.
public struct OperatorToken: Sendable, Equatable {
    private let hash: [UInt8]

    /// At least 32 characters (`familysync fleet token` makes one of 256 random bits); nil
    /// otherwise.
    public init?(_ token: String) {
        guard token.utf8.count >= Self.minimumLength, token.unicodeScalars.allSatisfy({ (0x21...0x7e).contains($0.value) }) else { return nil }
        hash = SecretToken.hash(token)
    }

    public static let minimumLength = 32

    /// A new token: `fso1.` and 256 random bits, base64url (the prefix tells it apart from a
    /// device's `fs1.` credential in a secret scanner's findings).
    public static func generate() -> String {
        "fso1." + SecretToken.randomSecret()
    }

    public func admits(_ presented: String) -> Bool {
        constantTimeEquals(hash, SecretToken.hash(presented))
    }
}
