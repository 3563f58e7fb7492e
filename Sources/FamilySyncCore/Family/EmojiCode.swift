import Crypto
import Foundation

/// The 7 verification emoji both sides of a pairing show (PROTOCOL §3).
///
/// Derivation, for a client to reimplement:
/// 1. key = the UTF-8 bytes of the pairing token exactly as the QR payload carries it;
/// 2. message = the UTF-8 bytes of `"<pairingId>|<parentDeviceId>|<childDeviceId>"`, ids as
///    lowercase UUID strings with hyphens;
/// 3. mac = HMAC-SHA-256(key, message);
/// 4. the first 42 bits of mac, most significant bit first, as seven 6-bit numbers;
/// 5. each number indexes `EmojiCode.table` (64 entries, the table of Matrix's SAS verification).
/// Test vectors are in docs/pairing.md and EmojiCodeTests.
public enum EmojiCode {
    public static let table: [String] = [
        "🐶", "🐱", "🦁", "🐎", "🦄", "🐷", "🐘", "🐰",
        "🐼", "🐓", "🐧", "🐢", "🐟", "🐙", "🦋", "🌷",
        "🌳", "🌵", "🍄", "🌏", "🌙", "☁️", "🔥", "🍌",
        "🍎", "🍓", "🌽", "🍕", "🎂", "❤️", "😀", "🤖",
        "🎩", "👓", "🔧", "🎅", "👍", "☂️", "⌛", "⏰",
        "🎁", "💡", "📕", "✏️", "📎", "✂️", "🔒", "🔑",
        "🔨", "☎️", "🏁", "🚂", "🚲", "✈️", "🚀", "🏆",
        "⚽", "🎸", "🎺", "🔔", "⚓", "🎧", "📁", "📌",
    ]

    public static func derive(token: String, pairingID: UUID, parentDeviceID: UUID, childDeviceID: UUID) -> [String] {
        indices(token: token, pairingID: pairingID, parentDeviceID: parentDeviceID, childDeviceID: childDeviceID).map { table[$0] }
    }

    /// The seven 6-bit numbers, 0–63.
    public static func indices(token: String, pairingID: UUID, parentDeviceID: UUID, childDeviceID: UUID) -> [Int] {
        let message = "\(pairingID.lowercased)|\(parentDeviceID.lowercased)|\(childDeviceID.lowercased)"
        let mac = Array(HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: SymmetricKey(data: Data(token.utf8))))
        // The first six bytes as a 48-bit number; its top 42 bits are the seven indices.
        let prefix = mac[0..<6].reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        return (0..<7).map { Int((prefix >> UInt64(42 - 6 * $0)) & 0x3f) }
    }
}
