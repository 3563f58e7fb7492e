import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import Hummingbird

/// `/app/members/{id}/apps/{logicalID}`: one app of a member: its category and points (the
/// `AppConfiguration` of each of the member's child devices, sent as an `update_config` command
/// as the seeds' sendConfigurationToChild does, §7.1), and blocking it on one device or all.
extension WebController {
    func addAppRoutes(to app: RouterGroup<Context>) {
        app.post("members/:id/apps", use: blockApp)
            .get("members/:id/apps/:app", use: appPage)
            .post("members/:id/apps/:app", use: saveApp)
    }

    /// The block buttons: the app, the button pressed, and the device (none: every child device
    /// of the member); `back`, the app's page when pressed there.
    struct AppForm: WebForm {
        var csrf: String?
        var app: String?
        /// `block` or `unblock`.
        var action: String?
        var device: String?
        var back: String?
    }

    struct AppSettingsInput: WebForm {
        var csrf: String?
        var category: String?
        var pointsPerMinute: String?
    }

    /// `POST /app/members/{id}/apps` (`app`, `action` block or unblock, optional `device`): the
    /// command to that child device, or to each of the member's.
    @Sendable func blockApp(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        let form = try await session.checkForm(request, as: AppForm.self)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        let memberID = try context.pathID()
        guard let app = form.app, !app.isEmpty else { throw FamilySyncError.badRequest("Name the app.", field: "app") }
        guard let action = form.action, ["block", "unblock"].contains(action) else {
            throw FamilySyncError.badRequest("The action is block or unblock.", field: "action")
        }
        let only = try form.device.flatMap { $0.isEmpty ? nil : $0 }.map { try Validation.uuid($0, field: "device") }
        let (_, memberDevices, _) = try await memberView(client, memberID)
        let devices = memberDevices.filter { $0.role == .child }
        if let only, !devices.contains(where: { $0.id == only }) { throw FamilySyncError.notFound("No such device of this member.") }
        for device in devices where only == nil || device.id == only {
            _ = try await client.sendCommand(to: device.id, CreateCommandRequest(commandType: action, payload: Command.appsPayload([app])))
        }
        let page = "/app/members/\(memberID.lowercased)"
        return session.redirect(form.back == "app" ? "\(page)/apps/\(Self.pathSegment(app))" : page)
    }

    @Sendable func appPage(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        guard let form = try await memberForm(session, context) else { return session.redirect("/app/") }
        let page = try await appSettings(Self.appParameter(context), form, input: nil, saved: request.uri.queryParameters.get("saved") != nil)
        return pages.render("appSettings", page, cookies: session.setCookies)
    }

    /// `POST /app/members/{id}/apps/{logicalID}` (`category`, `pointsPerMinute`): the app's
    /// configuration on each of the member's child devices, its other fields as they were.
    @Sendable func saveApp(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        let input = try await session.checkForm(request, as: AppSettingsInput.self)
        guard let form = try await memberForm(session, context) else { return session.redirect("/app/") }
        let app = Self.appParameter(context)
        let page = try await appSettings(app, form, input: input)
        return try await Self.submit(page, at: "/app/members/\(form.member.id.lowercased)/apps/\(Self.pathSegment(app))", render: { pages.render("appSettings", $0, status: $1.code.httpStatus, cookies: session.setCookies) }) {
            var points: JSONValue?
            if let text = input.pointsPerMinute?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
                guard let value = Int(text) else { throw FamilySyncError.badRequest("Points a minute: a whole number.", field: "pointsPerMinute") }
                points = .number(Double(value))
            }
            let devices = form.childDevices
            guard !devices.isEmpty else { throw FamilySyncError(.conflict, "\(form.member.name) has no child device to configure.") }
            for device in devices {
                var fields = try await configuration(of: app, on: device.id, form.client) ?? [
                    "logicalID": .string(app), "displayName": .string(page.displayName), "isEnabled": .bool(true), "blockingEnabled": .bool(false),
                ]
                fields["category"] = .string(input.category ?? "")
                fields["pointsPerMinute"] = points
                _ = try await form.client.sendCommand(to: device.id, CreateCommandRequest(commandType: "update_config", configuration: [fields]))
            }
            return session.redirect("/app/members/\(form.member.id.lowercased)/apps/\(Self.pathSegment(app))?saved=1")
        }
    }

    /// The page: the app's configuration as the first device that has one holds it, its state on
    /// each child device, and the form as typed when `input` is given.
    func appSettings(_ app: String, _ form: MemberFormContext, input: AppSettingsInput?, saved: Bool = false) async throws -> WebPages.AppSettings {
        guard !app.isEmpty, app.utf8.count <= 255 else { throw FamilySyncError.badRequest("An app's logicalID is 1–255 bytes.", field: "app") }
        let token = try await liveToken(form.client)
        let devices = form.childDevices
        var stored: [String: JSONValue]?
        var states: [WebPages.AppSettings.DeviceState] = []
        for device in devices {
            if stored == nil { stored = try await configuration(of: app, on: device.id, form.client) }
            async let shieldAsked = form.client.shieldState(of: device.id)
            async let openAsked = form.client.commands(of: device.id, status: .open)
            let (shield, open) = try await (shieldAsked, openAsked)
            let state = Self.appState(app, shield: shield, open: open)
            states.append(.init(id: device.id.lowercased, name: device.name, state: state, label: form.session.strings["state.\(state)"]))
        }
        var seen: MemberDayBody.App?
        if stored == nil {
            // Not configured yet: as the member's week reported it (its name, the category it was counted in).
            let dates = Self.lastSevenDays(endingAt: clock.now(), in: form.timeZone)
            seen = try await form.client.memberSummaries(of: form.member.id, from: dates.first!, to: dates.last!).flatMap(\.byApp).last { $0.logicalID == app }
        }
        func text(_ key: String) -> String? {
            switch stored?[key] {
            case .string(let value)?: value
            case .number(let value)?: String(Int(value))
            default: nil
            }
        }
        let category = input?.category ?? text("category") ?? seen?.category ?? BundleCategories.category(of: app)?.rawValue ?? "other"
        let displayName = text("displayName") ?? seen?.displayName ?? app
        var page = WebPages.AppSettings(
            frame: form.session.frame(displayName, signedIn: true, liveToken: token), memberID: form.member.id.lowercased, memberName: form.member.name,
            logicalID: app, path: Self.pathSegment(app), displayName: displayName, configured: stored != nil, saved: saved,
            categories: Self.categoryOptions(form.categories, selected: category, all: nil, form.session.strings), devices: states
        )
        page.category = WebField(category)
        page.pointsPerMinute = WebField(input?.pointsPerMinute ?? text("pointsPerMinute") ?? "")
        return page
    }

    /// The `AppConfiguration` of `app` on a child device, as stored; nil for none.
    func configuration(of app: String, on device: UUID, _ client: FamilySyncClient) async throws -> [String: JSONValue]? {
        let filter = QueryRecordsRequest.Filter(fieldName: "logicalID", comparator: .equals, value: .string(app))
        let found = try await client.query(Device.zoneName(forChild: device), QueryRecordsRequest(recordType: RecordTypeName.appConfiguration, filterBy: [filter], resultsLimit: 1))
        return found.records.first?.fields
    }

    /// The path's logicalID, its percent-encoding undone (the router matches the raw path).
    static func appParameter(_ context: Context) -> String {
        let raw = context.parameters.get("app") ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    /// A logicalID as one segment of a path (it may hold `/`, `?` or spaces).
    static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}
