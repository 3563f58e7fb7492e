import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import Hummingbird

/// `/app/members/{id}/settings`: a member's name, its parent PIN (§11), and its devices: moved to
/// another member of their role, or revoked. Each form is the SDK's call; a refusal comes back on
/// this page beside its field.
extension WebController {
    func addMemberSettingsRoutes(to app: RouterGroup<Context>) {
        app.get("members/:id/settings", use: memberSettings)
            .post("members/:id/name", use: renameMember)
            .post("members/:id/pin", use: changePIN)
            .post("devices/:id/move", use: moveDevice)
            .post("devices/:id/revoke", use: revokeDevice)
    }

    struct NameInput: WebForm {
        var csrf: String?
        var name: String?
        /// `family`: the family page asked (its prompt goes back there); else this member's settings.
        var back: String?
        /// The family page's "keep this name": nothing is renamed, the prompt is not shown again.
        var keep: String?
    }

    struct PINInput: WebForm {
        var csrf: String?
        var pin: String?
        /// `set` or `clear`.
        var action: String?
    }

    struct MoveInput: WebForm {
        var csrf: String?
        var member: String?
    }

    @Sendable func memberSettings(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        let page = try await memberSettingsPage(client, try context.pathID(), session, done: request.uri.queryParameters.get("done").map { String($0) })
        return pages.render("memberSettings", page, cookies: session.setCookies)
    }

    /// `POST /app/members/{id}/name`.
    @Sendable func renameMember(_ request: Request, context: Context) async throws -> Response {
        var session = WebSession(request, cookies)
        let input = try await session.checkForm(request, as: NameInput.self)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        let memberID = try context.pathID()
        if input.keep != nil {
            session.set(WebCookies.nameAsked, "1", maxAge: Self.sessionSeconds)
            return session.redirect("/app/")
        }
        var page = try await memberSettingsPage(client, memberID, session)
        page.name = WebField(input.name ?? "")
        return try await Self.submit(page, at: "/app/members/\(memberID.lowercased)/settings", render: { pages.render("memberSettings", $0, status: $1.code.httpStatus, cookies: session.setCookies) }) {
            _ = try await client.renameMember(memberID, to: (input.name ?? "").trimmingCharacters(in: .whitespaces))
            return session.redirect(input.back == "family" ? "/app/" : "/app/members/\(memberID.lowercased)/settings?done=name")
        }
    }

    /// `POST /app/members/{id}/pin` (`action` set, with `pin`; or clear).
    @Sendable func changePIN(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        let input = try await session.checkForm(request, as: PINInput.self)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        let memberID = try context.pathID()
        let page = try await memberSettingsPage(client, memberID, session)
        // The PIN is never written back into the page, refused or not.
        return try await Self.submit(page, at: "/app/members/\(memberID.lowercased)/settings", render: { pages.render("memberSettings", $0, status: $1.code.httpStatus, cookies: session.setCookies) }) {
            switch input.action {
            case "set": try await client.setParentPIN(input.pin ?? "", of: memberID)
            case "clear":
                // The member is there (its page was read): no PIN to clear is what clearing leaves (a second press).
                do { try await client.clearParentPIN(of: memberID) } catch let failure as FamilySyncError where failure.code == .notFound {}
            default: throw FamilySyncError.badRequest("The action is set or clear.", field: "action")
            }
            return session.redirect("/app/members/\(memberID.lowercased)/settings?done=pin-\(input.action ?? "")")
        }
    }

    /// `POST /app/devices/{id}/move` (`member`): back to the settings of the member it left.
    @Sendable func moveDevice(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        let input = try await session.checkForm(request, as: MoveInput.self)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        let deviceID = try context.pathID()
        guard let from = try await client.devices().first(where: { $0.id == deviceID })?.memberId else { throw FamilySyncError.notFound("No such device.") }
        let page = try await memberSettingsPage(client, from, session)
        // A refusal names the body's `memberId`, no field of this page: it shows above the forms.
        return try await Self.submit(page, at: "/app/members/\(from.lowercased)/settings", render: { pages.render("memberSettings", $0, status: $1.code.httpStatus, cookies: session.setCookies) }) {
            _ = try await client.moveDevice(deviceID, to: try Validation.uuid(input.member ?? "", field: "member"))
            return session.redirect("/app/members/\(from.lowercased)/settings?done=moved")
        }
    }

    /// `POST /app/devices/{id}/revoke`: at once, and for good (§3); back to its member's settings.
    @Sendable func revokeDevice(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        try await session.checkForm(request)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        let deviceID = try context.pathID()
        let devices = try await client.devices()
        guard let device = devices.first(where: { $0.id == deviceID }) else { throw FamilySyncError.notFound("No such device.") }
        if device.id == (try await client.me()).id {
            throw FamilySyncError(.conflict, "This is the browser you are using; sign out instead.")
        }
        try await client.revokeDevice(deviceID)
        return session.redirect(device.memberId.map { "/app/members/\($0.lowercased)/settings?done=revoked" } ?? "/app/")
    }

    func memberSettingsPage(_ client: FamilySyncClient, _ memberID: UUID, _ session: WebSession, done: String? = nil) async throws -> WebPages.MemberSettings {
        async let membersAsked = client.members()
        async let devicesAsked = client.devices()
        async let meAsked = client.me()
        let (members, devices, me) = try await (membersAsked, devicesAsked, meAsked)
        guard let member = members.first(where: { $0.id == memberID }) else { throw FamilySyncError.notFound("No such member.") }
        let hasPIN = try await client.hasParentPIN(memberID)
        let now = clock.now()
        let strings = session.strings
        let done = done.flatMap { ["name", "pin-set", "pin-clear", "moved", "revoked"].contains($0) ? strings["done.\($0)"] : nil }
        var page = WebPages.MemberSettings(
            frame: session.frame(strings.format("title.memberSettings", member.name), signedIn: true), memberID: member.id.lowercased, memberName: member.name, role: member.role.rawValue,
            done: done, hasPIN: hasPIN,
            devices: devices.filter { member.deviceIds.contains($0.id) && $0.status == .active }.map { device in
                // A device moves only to another member of its role (§8).
                let targets = members.filter { $0.role == member.role && $0.id != member.id }.map { WebOption(value: $0.id.lowercased, label: $0.name, selected: false) }
                return .init(
                    id: device.id.lowercased, name: device.name, platform: Self.platformLabel(device.platform, strings), lastSync: strings.ago(device.lastSyncAt, now: now),
                    isThis: device.id == me.id, targets: targets, canMove: !targets.isEmpty
                )
            }
        )
        page.name = WebField(member.name)
        return page
    }
}
