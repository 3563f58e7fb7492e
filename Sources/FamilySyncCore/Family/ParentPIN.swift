import Crypto
import CryptoExtras
import Foundation

/// The PIN in front of parent mode on a child's device (PROTOCOL §11), as the server stores it:
/// PBKDF2-HMAC-SHA256 of the PIN with a random salt, kept where no device reads it. A PIN has
/// 10,000 to 10⁸ values, so any verifier a child's device could read, however many iterations,
/// would give the PIN to the person it is meant to stop; a PIN is checked online only, five wrong
/// in 15 minutes. The `parent-pin` `DeviceSettings` record in the member's zone only says that a
/// PIN is set (`markerFields`). The PIN itself is never kept.
public struct ParentPIN: Sendable, Equatable {
    public static let recordName = "parent-pin"
    public static let algorithm = "PBKDF2-HMAC-SHA256"
    /// swift-crypto's floor for PBKDF2 (OWASP's 2021 figure), above §11's 200,000: it guards the
    /// PINs of a database that leaked, for a while; what guards them from a child is that no
    /// device has the verifier.
    public static let iterations = 210_000
    static let saltBytes = 16
    static let hashBytes = 32

    public var salt: [UInt8]
    public var iterations: Int
    public var hash: [UInt8]

    /// A PIN is 4–8 ASCII digits.
    public static func validate(_ pin: String, field: String) throws(FamilySyncError) {
        guard (4...8).contains(pin.utf8.count), pin.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .badRequest("A PIN is 4 to 8 digits.", field: field)
        }
    }

    /// The stored form of `pin` with a fresh random salt.
    public init(pin: String, iterations: Int = ParentPIN.iterations) throws(FamilySyncError) {
        try Self.validate(pin, field: "pin")
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<Self.saltBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        self.init(salt: salt, iterations: iterations, hash: try Self.derive(pin, salt: salt, iterations: iterations))
    }

    public init(salt: [UInt8], iterations: Int, hash: [UInt8]) {
        self.salt = salt
        self.iterations = iterations
        self.hash = hash
    }

    /// Whether `pin` is the one stored, compared in constant time. A PIN of the wrong shape is
    /// simply not it.
    public func matches(_ pin: String) -> Bool {
        guard (try? Self.validate(pin, field: "pin")) != nil, let derived = try? Self.derive(pin, salt: salt, iterations: iterations) else { return false }
        return constantTimeEquals(derived, hash)
    }

    /// PBKDF2-HMAC-SHA256 as any device computes it, with no floor on the rounds: for checking
    /// against the standard's vectors.
    public static func standardHash(_ password: [UInt8], salt: [UInt8], iterations: Int, byteCount: Int) throws -> [UInt8] {
        try KDF.Insecure.PBKDF2.deriveKey(from: password, salt: salt, using: .sha256, outputByteCount: byteCount, unsafeUncheckedRounds: iterations)
            .withUnsafeBytes { Array($0) }
    }

    static func derive(_ pin: String, salt: [UInt8], iterations: Int) throws(FamilySyncError) -> [UInt8] {
        do {
            let key = try KDF.Insecure.PBKDF2.deriveKey(from: Array(pin.utf8), salt: salt, using: .sha256, outputByteCount: hashBytes, rounds: iterations)
            return key.withUnsafeBytes { Array($0) }
        } catch {
            throw FamilySyncError(.badRequest, "PBKDF2 needs at least 210,000 iterations.")
        }
    }

    /// The `parent-pin` record's fields: that a PIN is set and is checked online, and nothing a
    /// guess could be tried against. An app on an earlier SDK reads the record as a verifier
    /// (`algorithm`, `salt`, `iterations`, `hash`) and takes one it cannot read for "no PIN":
    /// so the record carries a decoy in that shape, random bytes no PIN derives to, and such an
    /// app stays locked offline (it fails closed) while online checks work for it too.
    public static func markerFields() -> [String: JSONValue] {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<saltBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let decoy = (0..<hashBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return [
            "verification": .string("online"), "algorithm": .string(algorithm), "salt": .string(Data(salt).base64EncodedString()),
            "iterations": .number(Double(iterations)), "hash": .string(Data(decoy).base64EncodedString()),
        ]
    }

    /// Whether a `parent-pin` record's fields are the marker (`markerFields`), not a verifier an
    /// earlier server wrote.
    public static func isMarker(_ fields: [String: JSONValue]) -> Bool {
        fields["verification"] == .string("online")
    }

    /// Whether a `parent-pin` record's fields say a PIN is set (a tombstone's, none, say not).
    public static func isSet(_ fields: [String: JSONValue]?) -> Bool {
        fields?["verification"] != nil || fields?["hash"] != nil
    }

    /// The verifier an earlier server wrote into the record itself; nil for the marker or
    /// anything else.
    public init?(legacyFields fields: [String: JSONValue]) {
        guard !Self.isMarker(fields), case .string(Self.algorithm)? = fields["algorithm"], case .string(let salt)? = fields["salt"],
            case .string(let hash)? = fields["hash"], case .number(let iterations)? = fields["iterations"], let count = Int(exactly: iterations),
            count >= Self.iterations, let saltBytes = Data(base64Encoded: salt), let hashBytes = Data(base64Encoded: hash), hashBytes.count == Self.hashBytes
        else { return nil }
        self.init(salt: Array(saltBytes), iterations: count, hash: Array(hashBytes))
    }
}
