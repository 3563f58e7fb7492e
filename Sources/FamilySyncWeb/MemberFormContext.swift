import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation
import Hummingbird

/// What a form of a member's page (a budget, a schedule) starts from.
struct MemberFormContext {
    let session: WebSession
    let client: FamilySyncClient
    let member: MemberBody
    /// The member's active devices.
    let devices: [DeviceBody]
    /// The member's days and schedule times are read in it.
    let timeZone: TimeZone
    /// The family's `Category` records, for the forms' choices.
    let categories: [[String: JSONValue]]

    /// The devices that take commands and hold apps: the member's children's.
    var childDevices: [DeviceBody] { devices.filter { $0.role == .child } }
}

extension WebController {
    /// The member of the path, for a signed-in browser; nil without a session.
    func memberForm(_ session: WebSession, _ context: Context) async throws -> MemberFormContext? {
        guard let client = try await session.client(api, context) else { return nil }
        async let categoriesAsked = client.categories()
        let (member, devices, timeZone) = try await memberView(client, try context.pathID())
        return MemberFormContext(session: session, client: client, member: member, devices: devices, timeZone: timeZone, categories: try await categoriesAsked)
    }

    /// The member, its active devices, and the time zone its days are read in: that of its first
    /// device (UTC without one), as its summaries' days are.
    func memberView(_ client: FamilySyncClient, _ memberID: UUID) async throws -> (MemberBody, [DeviceBody], TimeZone) {
        async let membersAsked = client.members()
        async let devicesAsked = client.devices()
        let (members, all) = try await (membersAsked, devicesAsked)
        guard let member = members.first(where: { $0.id == memberID }) else { throw FamilySyncError.notFound("No such member.") }
        let devices = all.filter { member.deviceIds.contains($0.id) && $0.status == .active }
        return (member, devices, devices.first.flatMap { TimeZone(identifier: $0.timeZone) } ?? TimeZone(identifier: "UTC")!)
    }

    /// `POST …/{id}/<section>/:<parameter>/delete`: the record goes, back to the member's section.
    func deleteMemberRecord(
        _ request: Request, _ context: Context, parameter: String, section: String, _ delete: (FamilySyncClient, String, UUID) async throws -> Void
    ) async throws -> Response {
        let session = WebSession(request, cookies)
        try await session.checkForm(request)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        let memberID = try context.pathID()
        try await delete(client, context.parameters.get(parameter) ?? "", memberID)
        return session.redirect("/app/members/\(memberID.lowercased)#\(section)")
    }

    /// `stem`, or `stem-` and eight random characters when a record of that id is there already
    /// (or the stem is `new`, the address of the empty form).
    static func newID(_ stem: String, taken: Set<String>) -> String {
        taken.contains(stem) || stem == "new" ? "\(stem)-\(UUID().uuidString.prefix(8).lowercased())" : stem
    }
}
