import Crypto
import Foundation

/// A server change token (PROTOCOL §5.5): opaque to clients, authenticated by the server, bound to
/// a family, a device and a scope (the database, or one incarnation of a zone).
///
/// Layout before base64url: version (1), kind (1: 0 database, 1 zone), family id (16), device id
/// (16), sequence (8, big-endian), and for a zone its incarnation id (16) and name (length byte +
/// UTF-8); then the first 16 bytes of HMAC-SHA-256 over all of that with the server's secret.
public struct ChangeToken: Sendable, Equatable {
    public enum Scope: Sendable, Equatable {
        case database
        /// `incarnation` changes when a zone is deleted and made again, so old tokens stop working.
        case zone(name: String, incarnation: UUID)
    }

    public var familyID: UUID
    public var deviceID: UUID
    public var scope: Scope
    /// The family change sequence the holder has seen everything up to.
    public var sequence: Int64

    public init(familyID: UUID, deviceID: UUID, scope: Scope, sequence: Int64) {
        self.familyID = familyID
        self.deviceID = deviceID
        self.scope = scope
        self.sequence = sequence
    }

    /// The database's token for `caller` at `sequence` (§5.5: `GET /v1/changes` and the poll).
    public init(database caller: AuthenticatedDevice, at sequence: Int64) {
        self.init(familyID: caller.familyID, deviceID: caller.deviceID, scope: .database, sequence: sequence)
    }

    /// §5.5: the database's changes and the poll take the database's token, never a zone's.
    public func checkDatabaseScope(field: String = "since") throws(FamilySyncError) {
        guard scope == .database else {
            throw FamilySyncError(.badChangeToken, "This is a zone's change token; the database's changes and the poll take the database's.", field: field)
        }
    }

    /// The token of `zone` for `caller` at `sequence`: what a write's or a page's answer hands back.
    public init(of zone: Zone, for caller: AuthenticatedDevice, at sequence: Int64) {
        self.init(familyID: caller.familyID, deviceID: caller.deviceID, scope: .zone(name: zone.name, incarnation: zone.incarnation), sequence: sequence)
    }

    static let version: UInt8 = 1
    static let macLength = 16

    public func encode(key: SymmetricKey) -> String { encode(keyed: HMAC(key: key)) }

    /// `encode(key:)` with the key already set up in `keyed` (a copy of it is used): a keyed
    /// HMAC's set-up hashes the key twice, on every token otherwise.
    public func encode(keyed: HMAC<SHA256>) -> String {
        var bytes: [UInt8] = [Self.version]
        switch scope {
        case .database: bytes.append(0)
        case .zone: bytes.append(1)
        }
        bytes += familyID.bytes + deviceID.bytes
        bytes += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: sequence) >> (56 - 8 * UInt64($0))) }
        if case .zone(let name, let incarnation) = scope {
            let utf8 = Array(name.utf8.prefix(255))
            bytes += incarnation.bytes + [UInt8(utf8.count)] + utf8
        }
        var mac = keyed
        bytes.withUnsafeBytes { mac.update(data: $0) }
        bytes += Array(mac.finalize()).prefix(Self.macLength)
        return Base64URL.encode(bytes)
    }

    /// `BAD_CHANGE_TOKEN` for anything that does not parse or was not made with `key`.
    public static func decode(_ text: String, key: SymmetricKey) throws(FamilySyncError) -> ChangeToken {
        try decode(text, keyed: HMAC(key: key))
    }

    /// `decode(_:key:)` with the key already set up in `keyed`, as `encode(keyed:)`.
    public static func decode(_ text: String, keyed: HMAC<SHA256>) throws(FamilySyncError) -> ChangeToken {
        let bad = FamilySyncError(.badChangeToken, "The change token is not valid.", field: "since")
        guard text.utf8.count <= 512, let bytes = Base64URL.decode(text), bytes.count >= 42 + macLength else { throw bad }
        let body = Array(bytes.dropLast(macLength))
        var authenticator = keyed
        body.withUnsafeBytes { authenticator.update(data: $0) }
        let mac = Array(authenticator.finalize()).prefix(macLength)
        guard constantTimeEquals(mac, bytes.suffix(macLength)), body[0] == version else { throw bad }
        let family = UUID(bytes: body[2..<18]), device = UUID(bytes: body[18..<34])
        let sequence = Int64(bitPattern: body[34..<42].reduce(UInt64(0)) { ($0 << 8) | UInt64($1) })
        switch body[1] {
        case 0 where body.count == 42:
            return ChangeToken(familyID: family, deviceID: device, scope: .database, sequence: sequence)
        case 1 where body.count >= 59 && body.count == 59 + Int(body[58]):
            guard let name = String(bytes: body[59...], encoding: .utf8) else { throw bad }
            return ChangeToken(familyID: family, deviceID: device, scope: .zone(name: name, incarnation: UUID(bytes: body[42..<58])), sequence: sequence)
        default:
            throw bad
        }
    }
}

/// Base64url without padding (RFC 4648 §5), written and read byte by byte over a table: tokens
/// are read on every fetch and poll, and the way through Foundation's `Data` copied the bytes four
/// times and encoded them again to check the spelling (that encode alone was 0.8 % of a
/// nothing-new fetch).
enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// Each byte's value in the alphabet, or 0xFF for a byte not in it.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(index) }
        return values
    }()

    static func encode(_ bytes: [UInt8]) -> String {
        let count = (bytes.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: count) { text in
            var out = 0
            var index = 0
            while index < bytes.count {
                let group = bytes.count - index >= 3 ? 3 : bytes.count - index
                var bits = UInt32(bytes[index]) << 16
                if group > 1 { bits |= UInt32(bytes[index + 1]) << 8 }
                if group > 2 { bits |= UInt32(bytes[index + 2]) }
                for position in 0...group {
                    text[out] = alphabet[Int((bits >> UInt32(18 - 6 * position)) & 0x3F)]
                    out += 1
                }
                index += 3
            }
            return out
        }
    }

    /// The bytes of `text`, or nil unless it is in the alphabet and in the one spelling `encode`
    /// writes: no padding, and the unused low bits of a last partial group zero, so that one token
    /// has one text (clients and caches may compare tokens as strings).
    static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { utf8 -> [UInt8]? in
            guard utf8.count % 4 != 1 else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(utf8.count * 3 / 4)
            var bits: UInt32 = 0
            var held = 0
            for byte in utf8 {
                let value = values[Int(byte)]
                guard value != 0xFF else { return nil }
                bits = bits << 6 | UInt32(value)
                held += 6
                if held >= 8 {
                    held -= 8
                    bytes.append(UInt8(truncatingIfNeeded: bits >> UInt32(held)))
                }
            }
            // What is left over is the last character's unused bits (2 or 4 of them).
            guard bits & ((1 << UInt32(held)) - 1) == 0 else { return nil }
            return bytes
        }
    }
}

extension UUID {
    var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }

    init(bytes: ArraySlice<UInt8>) {
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
        self.init(uuid: value)
    }
}
