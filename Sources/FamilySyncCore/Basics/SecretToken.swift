import Crypto
import Foundation

/// The secrets FamilySync hands out: device credentials and pairing tokens.
///
/// Both carry 256 random bits and the ids needed to find their row by primary key, which begins
/// with the family id (the rule that keeps data distributable by family):
/// - credential: `fs1.<familyId>.<deviceId>.<secret>`
/// - pairing token: `fp1.<familyId>.<secret>` (the pairing id travels beside it)
/// `<secret>` is base64url without padding (43 characters). The server stores only SHA-256 of
/// the whole string and compares in constant time.
public enum SecretToken {
    public static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(bytes)
    }

    /// SHA-256 of the token's UTF-8 bytes: what is stored. Over the string's own bytes: a request's
    /// credential is hashed on every request (the cache's key), and the copy into `Data` showed.
    public static func hash(_ token: String) -> [UInt8] {
        var token = token
        return token.withUTF8 { Array(SHA256.hash(data: UnsafeRawBufferPointer($0))) }
    }

    /// The two ids of `<prefix>.<uuid>.<uuid>.<secret>` (a credential, a dashboard session); nil
    /// for anything else. Split by bytes: by `Character`, it was most of a credential's parse, and
    /// every authenticated request parses one (the profile of "nothing new").
    static func ids(of token: String, prefix: Substring) -> (UUID, UUID)? {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Substring.init)
        guard parts.count == 4, parts[0] == prefix, let first = UUID(uuidString: String(parts[1])), let second = UUID(uuidString: String(parts[2])),
            isSecret(parts[3])
        else { return nil }
        return (first, second)
    }

    static func isSecret(_ text: Substring) -> Bool {
        text.utf8.count == 43 && text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte) || byte == 0x2d || byte == 0x5f
        }
    }
}

/// A device's bearer credential.
public struct DeviceCredential: Sendable, Equatable {
    public var familyID: UUID
    public var deviceID: UUID
    /// The whole string, shown to the device once.
    public var token: String

    public static func generate(familyID: UUID, deviceID: UUID) -> DeviceCredential {
        let token = "fs1.\(familyID.lowercased).\(deviceID.lowercased).\(SecretToken.randomSecret())"
        return DeviceCredential(familyID: familyID, deviceID: deviceID, token: token)
    }

    /// Nil for anything that is not a well-formed credential.
    public init?(parsing token: String) {
        guard let (familyID, deviceID) = SecretToken.ids(of: token, prefix: "fs1") else { return nil }
        self.init(familyID: familyID, deviceID: deviceID, token: token)
    }

    init(familyID: UUID, deviceID: UUID, token: String) {
        self.familyID = familyID
        self.deviceID = deviceID
        self.token = token
    }

    public var hash: [UInt8] { SecretToken.hash(token) }
}

/// A pairing's single-use token.
public struct PairingToken: Sendable, Equatable {
    public var familyID: UUID
    public var token: String

    public static func generate(familyID: UUID) -> PairingToken {
        PairingToken(familyID: familyID, token: "fp1.\(familyID.lowercased).\(SecretToken.randomSecret())")
    }

    public init?(parsing token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "fp1", let familyID = UUID(uuidString: String(parts[1])), SecretToken.isSecret(parts[2])
        else { return nil }
        self.init(familyID: familyID, token: token)
    }

    init(familyID: UUID, token: String) {
        self.familyID = familyID
        self.token = token
    }

    public var hash: [UInt8] { SecretToken.hash(token) }
}

extension UUID {
    /// Ids are lowercase on the wire (PROTOCOL §1).
    public var lowercased: String { uuidString.lowercased() }
}
