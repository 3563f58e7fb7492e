import FamilySyncCore
import Foundation
import Testing

/// PROTOCOL §1.2.1's rules, without a server.
@Suite struct IdempotencyKeyRuleTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let hash: [UInt8] = Array(repeating: 7, count: 32)
    let answer = IdempotencyKey.Answer(status: 200, contentType: "application/json", body: Array("{}".utf8))

    @Test func aNewKeyRuns() {
        #expect(IdempotencyKey.decide(stored: nil, requestHash: hash, now: now) == .run)
    }

    @Test func theSameRequestIsAnsweredAgain() {
        let stored = IdempotencyKey.Stored(requestHash: hash, createdAt: now.addingTimeInterval(-3600), answer: answer)
        #expect(IdempotencyKey.decide(stored: stored, requestHash: hash, now: now) == .replay(answer))
    }

    @Test func anotherRequestUnderTheKeyIsRefused() {
        let stored = IdempotencyKey.Stored(requestHash: hash, createdAt: now, answer: answer)
        guard case .refuse(let error) = IdempotencyKey.decide(stored: stored, requestHash: Array(repeating: 8, count: 32), now: now) else {
            Issue.record("not refused")
            return
        }
        #expect(error.code == .idempotencyKeyReused)
        #expect(error.field == IdempotencyKey.header)
    }

    /// Committed without its answer: in progress for a while (wait and send again), then lost.
    @Test func aKeyWithoutItsAnswerIsInProgressThenLost() {
        let fresh = IdempotencyKey.Stored(requestHash: hash, createdAt: now.addingTimeInterval(-5), answer: nil)
        guard case .refuse(let waiting) = IdempotencyKey.decide(stored: fresh, requestHash: hash, now: now) else { Issue.record("ran"); return }
        #expect(waiting.code == .conflict && waiting.retryAfter == 1)
        let old = IdempotencyKey.Stored(requestHash: hash, createdAt: now.addingTimeInterval(-IdempotencyKey.answerGrace - 1), answer: nil)
        guard case .refuse(let lost) = IdempotencyKey.decide(stored: old, requestHash: hash, now: now) else { Issue.record("ran"); return }
        #expect(lost.code == .conflict && lost.retryAfter == nil)
        #expect(lost.reason.contains("was applied"))
    }

    @Test func aKeyPastItsDayIsNewAgain() {
        let stored = IdempotencyKey.Stored(requestHash: hash, createdAt: now.addingTimeInterval(-IdempotencyKey.lifetime), answer: answer)
        #expect(IdempotencyKey.decide(stored: stored, requestHash: Array(repeating: 9, count: 32), now: now) == .run)
    }

    @Test(arguments: ["", String(repeating: "a", count: 256), "a b", "ä", "a/b", "a\u{0}"])
    func aMalformedKeyIsRefused(_ key: String) {
        #expect(throws: FamilySyncError.self) { try IdempotencyKey.validate(key) }
    }

    @Test(arguments: ["0f8fad5b-d9cb-469f-a165-70867728950e", "a", String(repeating: "Z", count: 255), "batch:1.2_3-4"])
    func aWellFormedKeyIsTaken(_ key: String) throws {
        #expect(try IdempotencyKey.validate(key) == key)
    }

    @Test func onlySuccessesAreKept() {
        #expect(IdempotencyKey.keeps(status: 200) && IdempotencyKey.keeps(status: 201) && IdempotencyKey.keeps(status: 204))
        for status in [400, 404, 409, 422, 429, 500, 503] { #expect(!IdempotencyKey.keeps(status: status)) }
    }
}
