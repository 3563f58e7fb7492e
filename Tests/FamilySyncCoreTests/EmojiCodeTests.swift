import FamilySyncCore
import Foundation
import Testing

/// The vectors of docs/pairing.md, computed independently (Python's hmac) so that the Swift
/// derivation is checked against another implementation, not against itself.
@Suite struct EmojiCodeTests {
    struct Vector: Sendable, CustomStringConvertible {
        var token: String
        var pairing: String
        var parent: String
        var child: String
        var indices: [Int]
        var emoji: String
        var description: String { emoji }
    }

    static let vectors = [
        Vector(
            token: "fp1.00000000-0000-4000-8000-000000000001.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            pairing: "11111111-1111-4111-8111-111111111111", parent: "22222222-2222-4222-8222-222222222222",
            child: "33333333-3333-4333-8333-333333333333", indices: [55, 56, 48, 39, 3, 11, 49], emoji: "🏆⚽🔨⏰🐎🐢☎️"
        ),
        Vector(
            token: "fp1.6f1c2a57-5d1e-4c5b-9b3e-2f7a8c9d0e1f.q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80",
            pairing: "a882c00b-fc0c-416e-ab68-b7d620844d73", parent: "775ebc1f-5a07-41f6-961c-5f477e94c4aa",
            child: "20d503eb-15a7-4cae-b2df-169288441847", indices: [1, 46, 12, 57, 50, 43, 1], emoji: "🐱🔒🐟🎸🏁✏️🐱"
        ),
    ]

    @Test(arguments: vectors)
    func matchesTheDocumentedVectors(_ vector: Vector) throws {
        let ids = try [vector.pairing, vector.parent, vector.child].map { try #require(UUID(uuidString: $0)) }
        #expect(EmojiCode.indices(token: vector.token, pairingID: ids[0], parentDeviceID: ids[1], childDeviceID: ids[2]) == vector.indices)
        #expect(EmojiCode.derive(token: vector.token, pairingID: ids[0], parentDeviceID: ids[1], childDeviceID: ids[2]).joined() == vector.emoji)
    }

    @Test func theTableHas64DistinctEmoji() {
        #expect(EmojiCode.table.count == 64)
        #expect(Set(EmojiCode.table).count == 64)
    }

    @Test func everyInputChangesTheCode() {
        let (token, a, b, c) = (PairingToken.generate(familyID: UUID()).token, UUID(), UUID(), UUID())
        let base = EmojiCode.indices(token: token, pairingID: a, parentDeviceID: b, childDeviceID: c)
        #expect(base.count == 7 && base.allSatisfy { (0..<64).contains($0) })
        #expect(EmojiCode.indices(token: token, pairingID: a, parentDeviceID: b, childDeviceID: UUID()) != base)
        #expect(EmojiCode.indices(token: token, pairingID: a, parentDeviceID: c, childDeviceID: b) != base)
        #expect(EmojiCode.indices(token: PairingToken.generate(familyID: UUID()).token, pairingID: a, parentDeviceID: b, childDeviceID: c) != base)
    }
}
