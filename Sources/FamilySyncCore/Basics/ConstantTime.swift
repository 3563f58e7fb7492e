// Inlinable so that each caller gets it specialised for its collections: unspecialised, the
// generic loop over `zip` was 2 % of a "nothing new" fetch's CPU (Benchmarks/README.md, "The floor").
/// Compares secrets (hashes of credentials and tokens) without an early exit, so the time taken
/// says nothing about where they differ.
@inlinable
public func constantTimeEquals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
    return difference == 0
}
