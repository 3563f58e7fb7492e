import Crypto
import Foundation

/// A family's recovery code (PROTOCOL §13): 160 random bits written for people, as eight groups
/// of four base32 letters and digits (`K7QF-M2XA-…`). Shown once; the server keeps SHA-256 of its
/// normalised form and finds the family by that hash (the code carries no id: a person types it).
public struct RecoveryCode: Sendable, Equatable {
    /// The 32 base32 characters, upper case, without separators.
    public let normalized: String

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func generate() -> RecoveryCode {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<20).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return RecoveryCode(normalized: base32(bytes))
    }

    private init(normalized: String) { self.normalized = normalized }

    /// What a person typed: any case, with or without dashes and spaces. Nil when it cannot be a
    /// code at all (it is then answered as a wrong one).
    public init?(parsing text: String) {
        guard text.utf8.count <= 64 else { return nil }
        let characters = text.uppercased().utf8.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: " ") }
        guard characters.count == 32, characters.allSatisfy(Self.alphabet.contains) else { return nil }
        normalized = String(decoding: characters, as: UTF8.self)
    }

    /// As shown: groups of four joined by dashes.
    public var display: String {
        stride(from: 0, to: normalized.count, by: 4).map { start in
            let from = normalized.index(normalized.startIndex, offsetBy: start)
            return String(normalized[from..<normalized.index(from, offsetBy: 4)])
        }.joined(separator: "-")
    }

    public var hash: [UInt8] { SecretToken.hash(normalized) }

    /// RFC 4648 base32 without padding; 20 bytes make exactly 32 characters.
    static func base32(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer = 0, bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return String(decoding: output, as: UTF8.self)
    }
}

extension RecoveryCode {
    /// Whether a failed recovery counts toward the address's limit (§13): a wrong proof does (no
    /// family answers to the code, or the Apple token is refused, named by `proofField`), so that
    /// codes cannot be guessed at speed; a malformed request does not, since it guessed nothing.
    /// A server without Sign in with Apple answers not-found too, and that counts: to the caller
    /// it is one more wrong proof.
    public static func countsTowardLimit(_ error: FamilySyncError, proofField: String) -> Bool {
        error.code == .notFound || (error.code == .badRequest && error.field == proofField)
    }
}
