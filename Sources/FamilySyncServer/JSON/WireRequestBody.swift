import FamilySyncCore
import Foundation

/// A type a request's body is decoded to (PROTOCOL §1). Its members are the ones its own
/// `Decodable` reads (`MemberProbe`): strict decoding refuses any other, and `null` for a member
/// that does not take it (`TakesNull`).
protocol WireRequestBody: Decodable {}

extension WireRequestBody {
    static var members: MemberTree { MemberProbe.members(of: Self.self) }
}
