import FamilySyncCore
import Foundation
import NIOCore

/// An answer written straight into its buffer (`WireJSONWriter`) rather than through
/// `JSONEncoder`: the bodies of the hot paths.
protocol WireJSONWritable {
    func write(to writer: inout WireJSONWriter)
    /// Room to start with, so that a big answer is not grown many times over.
    var estimatedBytes: Int { get }
}

extension WireJSONWritable {
    var estimatedBytes: Int { 1024 }
}
