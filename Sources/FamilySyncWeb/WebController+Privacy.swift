import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import HTTPTypes
import Hummingbird

/// `/app/privacy` (PROTOCOL §15): how long the family's data is kept, its downloads, and who
/// changed what. Every read and write is the SDK's call, as on every page.
extension WebController {
    func addPrivacyRoutes(to app: RouterGroup<Context>) {
        app.get("privacy", use: privacyPage)
            .post("privacy/retention", use: setRetention)
            .get("privacy/export", use: download)
    }

    @Sendable func privacyPage(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        let page = try await privacyModel(client, session, saved: request.uri.queryParameters.get("saved") != nil)
        return pages.render("privacy", page, cookies: session.setCookies)
    }

    /// The page; after a refusal, with the days as typed and the reason beside the kind it names
    /// (`days.<kind>`, §15.1), or above the form.
    func privacyModel(_ client: FamilySyncClient, _ session: WebSession, saved: Bool, typed: RetentionForm? = nil, failure: FamilySyncError? = nil) async throws -> WebPages.Privacy {
        let token = try await liveToken(client)
        async let retentionAsked = client.retention()
        async let membersAsked = client.members()
        async let devicesAsked = client.devices()
        async let eventsAsked = client.auditEvents(limit: 50)
        let (retention, members, devices, events) = try await (retentionAsked, membersAsked, devicesAsked, eventsAsked)
        let memberNames = Dictionary(members.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let deviceNames = Dictionary(devices.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let now = clock.now()
        let strings = session.strings
        return WebPages.Privacy(
            frame: session.frame(strings["title.privacy"], signedIn: true, liveToken: token), saved: saved,
            error: failure.flatMap { $0.field?.hasPrefix("days.") == true ? nil : $0.reason }, maximumDays: retention.maximumDays,
            retention: RetentionKind.allCases.map { kind in
                let set = retention.familySet.contains(kind.rawValue)
                let days = retention.days[kind.rawValue] ?? retention.maximumDays
                return .init(
                    kind: kind.rawValue, label: strings["retention.\(kind.rawValue)"], days: days,
                    familyDays: typed.map { $0.value(kind) ?? "" } ?? (set ? String(days) : ""), familySet: set, maximumDays: retention.maximumDays,
                    error: failure?.field == "days.\(kind.rawValue)" ? failure?.reason : nil
                )
            },
            members: members.map { .init(id: $0.id.lowercased, name: $0.name) },
            events: events.events.map { event in
                let who = event.actor.deviceId.map { deviceNames[$0] ?? strings["audit.goneDevice"] } ?? strings[event.actor.role == "server" ? "audit.server" : "audit.erasedDevice"]
                return .init(
                    id: event.id, when: strings.ago(event.at, now: now), who: who, address: event.actor.address ?? "", action: event.action,
                    subject: [event.subjectType, event.subject ?? ""].joined(separator: " ").trimmingCharacters(in: .whitespaces),
                    concerns: event.memberId.map { memberNames[$0] ?? strings["audit.erasedMember"] } ?? ""
                )
            }
        )
    }

    /// `POST /app/privacy/retention`: the days typed for each kind; an empty field is the
    /// server's maximum. The server checks them; a refusal comes back beside the kind it names.
    @Sendable func setRetention(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        let form = try await session.checkForm(request, as: RetentionForm.self)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        do {
            var days: [RetentionKind: Int] = [:]
            for kind in RetentionKind.allCases {
                guard let text = form.value(kind)?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { continue }
                guard let value = Int(text) else {
                    throw FamilySyncError.badRequest("\(kind.rawValue): a whole number of days, or empty.", field: "days.\(kind.rawValue)")
                }
                days[kind] = value
            }
            _ = try await client.setRetention(days)
            return session.redirect("/app/privacy?saved=1")
        } catch let failure as FamilySyncError where failure.code == .badRequest {
            var page = try await privacyModel(client, session, saved: false, typed: form, failure: failure)
            // An answer to a POST: not live, and the language switch comes back to the page's address.
            page.frame.liveToken = nil
            page.frame.path = "/app/privacy"
            return pages.render("privacy", page, status: failure.code.httpStatus, cookies: session.setCookies)
        }
    }

    /// `GET /app/privacy/export[?member=ID]`: the API's own archive, streamed to the browser as
    /// a download (never held whole here).
    @Sendable func download(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        guard let token = session.cookie(WebCookies.session), let credential = try await cookies.credential(ofSession: token) else { return session.redirect("/app/") }
        var path = "/v1/families/me/export"
        if let member = request.uri.queryParameters.get("member") {
            path = "/v1/members/\(try Validation.uuid(member, field: "member").lowercased)/export"
        }
        return try await InProcessTransport(api: api, context: context).stream(path, credential: credential)
    }
}

/// The retention form: a field a kind, each optional.
struct RetentionForm: WebForm {
    var csrf: String?
    var usageSessions: String?
    var dailyTotals: String?
    var summaries: String?
    var alerts: String?
    var health: String?
    var commands: String?
    var audit: String?

    func value(_ kind: RetentionKind) -> String? {
        switch kind {
        case .usageSessions: usageSessions
        case .dailyTotals: dailyTotals
        case .summaries: summaries
        case .alerts: alerts
        case .health: health
        case .commands: commands
        case .audit: audit
        }
    }
}
