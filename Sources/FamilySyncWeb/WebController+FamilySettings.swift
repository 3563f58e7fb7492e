import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import Hummingbird

/// `/app/family`: the family's settings: its categories (the built-ins' names, and its own, §9.1)
/// and its recovery code (§13), issued anew and shown once.
extension WebController {
    func addFamilySettingsRoutes(to app: RouterGroup<Context>) {
        app.get("family", use: familySettings)
            .post("family/categories", use: saveCategory)
            .post("family/recovery-code", use: rotateRecoveryCode)
    }

    struct CategoryInput: WebForm {
        var csrf: String?
        /// The whole id (`x-chores`, or a built-in's to rename it).
        var id: String?
        var displayName: String?
        var kind: String?
        var defaultDailyMinutes: String?
    }

    @Sendable func familySettings(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        var page = try await familySettingsPage(client, session)
        page.saved = request.uri.queryParameters.get("saved") != nil
        return pages.render("familySettings", page, cookies: session.setCookies)
    }

    /// `POST /app/family/categories`: writes the `Category` record of `id`.
    @Sendable func saveCategory(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        let input = try await session.checkForm(request, as: CategoryInput.self)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        var page = try await familySettingsPage(client, session)
        page.id = WebField(input.id ?? "")
        page.displayName = WebField(input.displayName ?? "")
        page.defaultDailyMinutes = WebField(input.defaultDailyMinutes ?? "")
        page.kinds = page.kinds.map { WebOption(value: $0.value, label: $0.label, selected: $0.value == input.kind) }
        return try await Self.submit(page, at: "/app/family", render: { pages.render("familySettings", $0, status: $1.code.httpStatus, cookies: session.setCookies) }) {
            let id = (input.id ?? "").trimmingCharacters(in: .whitespaces)
            var fields: [String: JSONValue] = [
                "id": .string(id), "displayName": .string((input.displayName ?? "").trimmingCharacters(in: .whitespaces)), "kind": .string(input.kind ?? ""),
            ]
            if let text = input.defaultDailyMinutes?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
                guard let minutes = Int(text) else { throw FamilySyncError.badRequest("Minutes a day: a whole number.", field: "defaultDailyMinutes") }
                fields["defaultDailyMinutes"] = .number(Double(minutes))
            }
            _ = try await client.setCategory(fields)
            return session.redirect("/app/family?saved=1#categories")
        }
    }

    /// `POST /app/family/recovery-code`: a new code, shown on this answer only (never in an
    /// address, a cookie or a log); the old one stops working.
    @Sendable func rotateRecoveryCode(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        try await session.checkForm(request)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        // The page first: once the new code is issued the old one is gone, so nothing may fail after.
        var page = try await familySettingsPage(client, session)
        page.frame.path = "/app/family"
        page.recoveryCode = try await client.issueRecoveryCode()
        return pages.render("familySettings", page, cookies: session.setCookies)
    }

    func familySettingsPage(_ client: FamilySyncClient, _ session: WebSession) async throws -> WebPages.FamilySettings {
        let records = try await client.categories()
        var kinds: [String: String] = [:]
        for record in records {
            if case .string(let id)? = record["id"], case .string(let kind)? = record["kind"] { kinds[id] = kind }
        }
        let strings = session.strings
        let categories = Self.categoryOptions(records, selected: "", all: nil, strings).map { option in
            let kind = CategoryID.builtIn[option.value]?.rawValue ?? kinds[option.value] ?? "neutral"
            return WebPages.FamilySettings.Category(
                id: option.value, name: option.label, kind: kind, kindLabel: strings["kind.\(kind)"], own: CategoryID.builtIn[option.value] == nil
            )
        }
        var page = WebPages.FamilySettings(
            frame: session.frame(strings["title.familySettings"], signedIn: true), categories: categories,
            kinds: CategoryKind.allCases.map { WebOption(value: $0.rawValue, label: strings["kind.\($0.rawValue)"], selected: $0 == .neutral) }
        )
        page.id = WebField("x-")
        return page
    }
}
