import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// A request body type, with the members it may have.
protocol DeclaresMembers {
    static var members: MemberTree { get }
}
