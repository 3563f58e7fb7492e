import FamilySyncCore
import Foundation
import Testing

/// The parent PIN's stored form and its online limit (§11), without a database.
@Suite struct ParentPINRulesTests {
    @Test(arguments: ["1234", "00000000", "0007"])
    func aPINOfFourToEightDigitsIsAccepted(_ pin: String) throws {
        try ParentPIN.validate(pin, field: "pin")
    }

    @Test(arguments: ["123", "123456789", "", "12a4", "12 34", "١٢٣٤", "+1234", "１２３４"])
    func anythingElseIsRefused(_ pin: String) {
        #expect(performing: { try ParentPIN.validate(pin, field: "pin") }, throws: { ($0 as? FamilySyncError)?.field == "pin" })
    }

    @Test func theStoredFormChecksThePIN() throws {
        let stored = try ParentPIN(pin: "2468")
        #expect(stored.iterations >= 200_000 && stored.salt.count == 16 && stored.hash.count == 32)
        #expect(stored.matches("2468"))
        #expect(!stored.matches("2469") && !stored.matches("24680") && !stored.matches("246"))
        // Salted: the same PIN stores differently each time.
        #expect(try ParentPIN(pin: "2468").hash != stored.hash)
    }

    /// What the member's devices sync says a PIN is set and holds nothing a guess could be tried
    /// against: an earlier SDK reads it as a verifier no PIN matches (it stays locked), and the
    /// decoy changes each time, so it says nothing of the PIN.
    @Test func theRecordTheDevicesSyncCarriesNoVerifier() throws {
        let marker = ParentPIN.markerFields()
        #expect(marker["verification"] == .string("online") && ParentPIN.isMarker(marker) && ParentPIN.isSet(marker))
        #expect(ParentPIN(legacyFields: marker) == nil, "the server never takes the decoy for a verifier")
        // As an earlier SDK reads it: a verifier, of the right shape, that no PIN matches.
        var asRead = marker
        asRead["verification"] = nil
        let decoy = try #require(ParentPIN(legacyFields: asRead))
        #expect(!decoy.matches("2468") && !decoy.matches("0000"))
        #expect(ParentPIN.markerFields() != marker)
        #expect(!ParentPIN.isSet([:]) && !ParentPIN.isSet(nil))
    }

    @Test func aVerifierAnEarlierServerWroteIsReadAsOne() throws {
        let stored = try ParentPIN(pin: "2468")
        let fields: [String: JSONValue] = [
            "algorithm": .string("PBKDF2-HMAC-SHA256"), "salt": .string(Data(stored.salt).base64EncodedString()),
            "iterations": .number(Double(stored.iterations)), "hash": .string(Data(stored.hash).base64EncodedString()),
        ]
        #expect(try #require(ParentPIN(legacyFields: fields)).matches("2468"))
        var weak = fields
        weak["iterations"] = .number(1000)
        #expect(ParentPIN(legacyFields: weak) == nil)
    }

    /// RFC 7914 §11's PBKDF2-HMAC-SHA256 vector (P = "passwd", S = "salt", c = 1), through the
    /// unchecked entry the server never uses, so that the stored hash is the standard one any
    /// device can recompute.
    @Test func theHashIsStandardPBKDF2() throws {
        let expected = "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
        let derived = try ParentPIN.standardHash(Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, byteCount: 32)
        #expect(derived.map { String(format: "%02x", $0) }.joined() == expected)
    }

    /// A check admitted, then settled, as the store's two transactions do; nil when refused.
    static func check(_ attempts: PINAttempts, valid: Bool, at instant: Date) -> PINAttempts? {
        guard attempts.refusal(at: instant) == nil else { return nil }
        return attempts.admitting(at: instant).settling(admittedAt: instant, valid: valid, at: instant)
    }

    @Test func fiveWrongWithinFifteenMinutesLockForFifteen() throws {
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        var attempts = PINAttempts()
        for minute in 0..<4 { attempts = try #require(Self.check(attempts, valid: false, at: start.addingTimeInterval(Double(minute) * 60))) }
        #expect(attempts.refusal(at: start.addingTimeInterval(240)) == nil)
        attempts = try #require(Self.check(attempts, valid: false, at: start.addingTimeInterval(600)))
        #expect(attempts.refusal(at: start.addingTimeInterval(600))?.retryAfter == 900)
        #expect(attempts.refusal(at: start.addingTimeInterval(600 + 899.5))?.retryAfter == 1)
        #expect(Self.check(attempts, valid: true, at: start.addingTimeInterval(1000)) == nil, "locked: even the right PIN is not admitted")
        #expect(attempts.refusal(at: start.addingTimeInterval(1500)) == nil)
        // After the lockout one more wrong PIN does not lock again.
        attempts = try #require(Self.check(attempts, valid: false, at: start.addingTimeInterval(1500)))
        #expect(attempts.refusal(at: start.addingTimeInterval(1500)) == nil && attempts.failures.count == 1)
    }

    @Test func wrongPINsOlderThanTheWindowAndThoseBeforeARightOneDoNotCount() throws {
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        var attempts = PINAttempts()
        for minute in 0..<4 { attempts = try #require(Self.check(attempts, valid: false, at: start.addingTimeInterval(Double(minute) * 60))) }
        // 15 minutes after the first: it has left the window.
        attempts = try #require(Self.check(attempts, valid: false, at: start.addingTimeInterval(900)))
        #expect(attempts.refusal(at: start.addingTimeInterval(900)) == nil && attempts.failures.count == 4)
        attempts = try #require(Self.check(attempts, valid: true, at: start.addingTimeInterval(901)))
        #expect(attempts == PINAttempts())
    }

    /// Checks under way count against the allowance until they settle: with four wrong behind
    /// them, one more is admitted and the next is asked to try again in a second; settled wrong it
    /// locks, settled right it forgets them all.
    @Test func checksUnderWayTakeTheAllowance() throws {
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        var attempts = PINAttempts()
        for second in 0..<4 { attempts = try #require(Self.check(attempts, valid: false, at: start.addingTimeInterval(Double(second)))) }
        let admittedAt = start.addingTimeInterval(10)
        let underWay = attempts.admitting(at: admittedAt)
        #expect(underWay.refusal(at: start.addingTimeInterval(11))?.retryAfter == 1)
        #expect(underWay.settling(admittedAt: admittedAt, valid: true, at: start.addingTimeInterval(12)) == PINAttempts())
        let locked = underWay.settling(admittedAt: admittedAt, valid: false, at: start.addingTimeInterval(12))
        #expect(locked.refusal(at: start.addingTimeInterval(12))?.retryAfter == 900)
        // Five right PINs checked at once are all admitted... and a sixth waits for one of them.
        var busy = PINAttempts()
        for _ in 0..<5 { busy = busy.admitting(at: start) }
        #expect(busy.refusal(at: start)?.retryAfter == 1)
        #expect(busy.settling(admittedAt: start, valid: true, at: start).refusal(at: start) == nil)
    }

    /// A check whose server died before settling it counts as wrong after a minute.
    @Test func aCheckThatNeverSettlesCountsAsWrong() {
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        var attempts = PINAttempts()
        for second in 0..<5 { attempts = attempts.admitting(at: start.addingTimeInterval(Double(second))) }
        #expect(attempts.refusal(at: start.addingTimeInterval(30))?.retryAfter == 1)
        let later = start.addingTimeInterval(70)
        #expect(attempts.refusal(at: later)?.retryAfter == 900, "five abandoned checks are five wrong PINs")
        // A late settlement of one of them changes nothing.
        let late = attempts.settling(admittedAt: start, valid: false, at: later)
        #expect(late.refusal(at: later)?.retryAfter == 900 && late.pending.isEmpty)
    }
}
