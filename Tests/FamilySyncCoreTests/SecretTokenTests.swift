import Crypto
import FamilySyncCore
import Foundation
import Testing

@Suite struct SecretTokenTests {
    @Test func credentialsCarry256RandomBitsAndTheirIds() throws {
        let family = UUID(), device = UUID()
        let credential = DeviceCredential.generate(familyID: family, deviceID: device)
        let parts = credential.token.split(separator: ".")
        #expect(parts.count == 4 && parts[0] == "fs1")
        #expect(parts[3].count == 43)  // 32 bytes, base64url without padding
        let parsed = try #require(DeviceCredential(parsing: credential.token))
        #expect(parsed.familyID == family && parsed.deviceID == device)
        #expect(parsed.hash == credential.hash && parsed.hash.count == 32)
        #expect(DeviceCredential.generate(familyID: family, deviceID: device).token != credential.token)
    }

    @Test(arguments: [
        "", "fs1", "Bearer x", "fs1.not-a-uuid.\(UUID()).\(String(repeating: "A", count: 43))",
        "fs1.\(UUID()).\(UUID()).short", "fs2.\(UUID()).\(UUID()).\(String(repeating: "A", count: 43))",
        "fs1.\(UUID()).\(UUID()).\(String(repeating: "A", count: 42))+", "fs1.\(UUID()).\(UUID()).\(String(repeating: "A", count: 43)).extra",
        // A dot that a combining mark makes one character with: split by bytes, the part after it
        // starts with the mark, and is no secret.
        "fs1.\(UUID()).\(UUID()).\u{301}\(String(repeating: "A", count: 41))",
    ])
    func malformedCredentialsDoNotParse(_ text: String) {
        #expect(DeviceCredential(parsing: text) == nil)
    }

    @Test func pairingTokensParseAndCarryTheirFamily() throws {
        let family = UUID()
        let token = PairingToken.generate(familyID: family)
        #expect(try #require(PairingToken(parsing: token.token)).familyID == family)
        #expect(PairingToken(parsing: "fp1.\(family)") == nil)
        #expect(PairingToken(parsing: DeviceCredential.generate(familyID: family, deviceID: UUID()).token) == nil)
    }

    @Test func constantTimeComparison() {
        #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(constantTimeEquals([UInt8](), [UInt8]()))
    }

    /// What is stored is SHA-256 of the token's UTF-8 bytes, however the hash is taken: the rows
    /// already stored must keep matching. A bridged or a substring-backed string too.
    @Test(arguments: ["fs1.a.b.c", "ä𝄞 mixed ünïcode", "", String(repeating: "x", count: 300)])
    func theStoredHashIsSHA256OfTheUTF8Bytes(_ token: String) {
        let expected = Array(SHA256.hash(data: Data(token.utf8)))
        #expect(SecretToken.hash(token) == expected)
        #expect(SecretToken.hash(String("<" + token + ">").dropFirst().dropLast().description) == expected)
        #expect(SecretToken.hash(NSString(string: token) as String) == expected)
    }
}
