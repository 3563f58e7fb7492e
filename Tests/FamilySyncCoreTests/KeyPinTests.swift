import FamilySyncCore
import Testing

@Suite struct KeyPinTests {
    let served = KeyPin(digest: Array(repeating: 1, count: 32))!
    let next = KeyPin(digest: Array(repeating: 2, count: 32))!

    @Test func aPinIsBase64URLOfThirtyTwoBytes() {
        #expect(served.description.count == 43)
        #expect(KeyPin(served.description) == served)
        #expect(KeyPin(served.description + "A") == nil)
        #expect(KeyPin(String(served.description.dropLast()) + "+") == nil)
        #expect(KeyPin(digest: [1, 2, 3]) == nil)
    }

    @Test func aListReadsBackAndRefusesWhatIsNotOne() {
        #expect(KeyPins.parse(KeyPins.text([served, next])) == [served, next])
        #expect(KeyPins.parse("\(served),\(served)") == [served])
        #expect(KeyPins.parse("") == nil)
        #expect(KeyPins.parse("\(served),") == nil)
        #expect(KeyPins.parse("\(served), nonsense") == nil)
        let five = (1...5).map { KeyPin(digest: Array(repeating: UInt8($0), count: 32))! }
        #expect(KeyPins.parse(KeyPins.text(five)) == nil)
    }

    /// The server's announcement replaces what a device holds, unless it cannot be read.
    @Test func anAnnouncementReplacesTheHeldPins() {
        #expect(KeyPins.kept(held: [served], announced: KeyPins.text([served, next])) == [served, next])
        #expect(KeyPins.kept(held: [served, next], announced: KeyPins.text([next])) == [next])
        #expect(KeyPins.kept(held: [served], announced: nil) == [served])
        #expect(KeyPins.kept(held: [served], announced: "garbage") == [served])
    }
}
