import FamilySyncCore
import Testing

@Suite struct BodyPaceTests {
    @Test func aBodyHasItsGraceAndASecondForEachPaceOfBytes() {
        let pace = BodyPace(grace: .seconds(10), bytesPerSecond: 8192)
        #expect(pace.allowance(received: 0) == .seconds(10))
        #expect(pace.allowance(received: 8192) == .seconds(11))
        #expect(pace.allowance(received: 4096) == .milliseconds(10_500))
        // A 4 MiB body sent at the pace takes 512 s, and has them.
        #expect(pace.allowance(received: 4 << 20) == .seconds(10 + 512))
    }

    @Test func aDripOfBytesBuysAlmostNothing() {
        // The slow sender's `{` and a byte every 20 s: its allowance stays near the grace.
        let pace = BodyPace.standard
        #expect(pace.allowance(received: 10) < .milliseconds(10_002))
    }
}
