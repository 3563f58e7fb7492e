import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// `--child`: which child device a command is about.
struct ChildOption: ParsableArguments {
    @Option(help: "The child device: its id, its device name or the child's name. Default: the family's only child (a child device: itself).")
    var child: String?

    /// The device meant. A child profile always means itself; a parent's choice is matched against
    /// the family's children that are not revoked.
    func resolve(_ profile: Profile, _ client: FamilySyncClient) async throws -> DeviceBody {
        if profile.role == .child {
            let me = try await client.me()
            if let child, !Self.matches(me, child) {
                throw OperatorError.configuration("a child device acts only for itself; '\(child)' is not \(me.name)")
            }
            return me
        }
        let children = try await client.devices().filter { $0.role == .child && $0.status != .revoked }
        let names = children.map { "\($0.childName ?? $0.name) (\($0.name), \($0.id.lowercased))" }.joined(separator: "; ")
        guard let child else {
            guard children.count == 1 else {
                throw OperatorError.configuration(children.isEmpty
                    ? "the family has no child device yet: pair one with 'familysync pair start'"
                    : "the family has several children, choose one with --child: \(names)")
            }
            return children[0]
        }
        let matching = children.filter { Self.matches($0, child) }
        guard matching.count == 1 else {
            throw OperatorError.configuration(matching.isEmpty
                ? "no child device matches '\(child)'; the family's children: \(names.isEmpty ? "none" : names)"
                : "'\(child)' matches several children, give the device id: \(names)")
        }
        return matching[0]
    }

    /// Whether `selector` names `device`: its id, its device name or its child's name, in any case.
    static func matches(_ device: DeviceBody, _ selector: String) -> Bool {
        if let id = UUID(uuidString: selector) { return device.id == id }
        return device.name.caseInsensitiveCompare(selector) == .orderedSame
            || device.childName?.caseInsensitiveCompare(selector) == .orderedSame
    }
}
