/// Where the items of a request's list sit in its body (`records[3]`), for an error that names a
/// member of one (`records[3].category`). The controller that read the body says where; the rule
/// or store that checks an item gives only its index and the item's own member.
public struct ItemPath: Sendable {
    private let item: @Sendable (Int) -> String

    public init(_ item: @escaping @Sendable (Int) -> String) {
        self.item = item
    }

    /// The path of `member` of the item at `index`.
    public func callAsFunction(_ index: Int, _ member: String) -> String {
        "\(item(index)).\(member)"
    }
}
