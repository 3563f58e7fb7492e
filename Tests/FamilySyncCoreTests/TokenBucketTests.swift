import FamilySyncCore
import Foundation
import Testing

@Suite struct TokenBucketTests {
    @Test func allowsABurstThenRefillsAtTheRate() {
        let start = Date(timeIntervalSince1970: 0)
        var bucket = TokenBucket(capacity: 3, at: start)
        for _ in 0..<3 { #expect(bucket.take(capacity: 3, refillPerSecond: 0.5, at: start) == nil) }
        #expect(bucket.take(capacity: 3, refillPerSecond: 0.5, at: start) == 2)
        #expect(bucket.take(capacity: 3, refillPerSecond: 0.5, at: start.addingTimeInterval(1)) == 1)
        #expect(bucket.take(capacity: 3, refillPerSecond: 0.5, at: start.addingTimeInterval(2)) == nil)
        #expect(!bucket.isFull(capacity: 3, refillPerSecond: 0.5, at: start.addingTimeInterval(2)))
        #expect(bucket.isFull(capacity: 3, refillPerSecond: 0.5, at: start.addingTimeInterval(10)))
    }
}
