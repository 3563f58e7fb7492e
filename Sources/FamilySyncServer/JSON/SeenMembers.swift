import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// The members of one object read so far: a second of one is a miss, as is a required one never read.
struct SeenMembers {
    private var bits: UInt64 = 0

    mutating func mark(_ bit: Int) throws(OnePassJSON.Miss) {
        guard bits & (1 << bit) == 0 else { throw OnePassJSON.Miss() }
        bits |= 1 << bit
    }
}
