import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// The members a JSON body may have. Decoding checks types and required members; this tree adds
/// what decoding cannot see: which members exist at all, and which of them take `null`.
indirect enum MemberTree: Sendable {
    /// A value not looked into: a scalar, or a free-form object such as a record's fields.
    case any
    /// A member that takes `null`, meaning the same as leaving it out.
    case nullable(MemberTree)
    case object([String: MemberTree])
    case array(MemberTree)

    var takesNull: Bool {
        if case .nullable = self { return true }
        return false
    }

    /// An object of members not looked into.
    static func fields(_ names: String...) -> MemberTree {
        .object(Dictionary(uniqueKeysWithValues: names.map { ($0, .any) }))
    }
}
