import FamilySyncCore
import Foundation
import Testing

/// Which failed recoveries count toward an address's limit (§13): wrong proofs, not malformed requests.
@Suite struct RecoveryRulesTests {
    @Test func aWrongProofCountsAMalformedRequestDoesNot() {
        #expect(RecoveryCode.countsTowardLimit(.notFound("No family answers to this recovery."), proofField: "appleIdentityToken"))
        #expect(RecoveryCode.countsTowardLimit(.badRequest("refused", field: "appleIdentityToken"), proofField: "appleIdentityToken"))
        #expect(!RecoveryCode.countsTowardLimit(.badRequest("An Apple identity token comes with its nonce.", field: "nonce"), proofField: "appleIdentityToken"))
        #expect(!RecoveryCode.countsTowardLimit(.badRequest("Send recoveryCode, or appleIdentityToken with nonce."), proofField: "appleIdentityToken"))
        #expect(!RecoveryCode.countsTowardLimit(FamilySyncError(.tryAgainLater, "busy"), proofField: "appleIdentityToken"))
    }
}
