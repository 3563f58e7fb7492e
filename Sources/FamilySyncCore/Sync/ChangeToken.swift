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
        mac.update(data: bytes)
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
        authenticator.update(data: body)
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

enum Base64URL {
    // Byte by byte: Foundation's `replacingOccurrences` bridges to NSString, and tokens are
    // decoded and encoded on every fetch (it showed in the profile of "nothing new").
    static func encode(_ bytes: [UInt8]) -> String {
        let base64 = Data(bytes).base64EncodedData()
        var text: [UInt8] = []
        text.reserveCapacity(base64.count)
        for byte in base64 {
            switch byte {
            case UInt8(ascii: "+"): text.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): text.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: text.append(byte)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ $0 == 0x2d || $0 == 0x5f || (0x30...0x39).contains($0) || (0x41...0x5a).contains($0) || (0x61...0x7a).contains($0) }) else { return nil }
        var base64: [UInt8] = text.utf8.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0 }
        base64 += repeatElement(UInt8(ascii: "="), count: (4 - base64.count % 4) % 4)
        // Only the canonical spelling: unused low bits of the last character must be zero, so that
        // one token has one text (clients and caches may compare tokens as strings).
        guard let bytes = Data(base64Encoded: Data(base64)).map(Array.init), encode(bytes) == text else { return nil }
        return bytes
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
