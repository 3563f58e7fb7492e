import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import HTTPTypes
import Hummingbird

/// `/app/…`: the parent's web dashboard. The browser is a parent device of the family, signed in
/// by showing a code (PROTOCOL §3.1); its `HttpOnly` cookie holds a dashboard session
/// (`DashboardSession`), and the server the device's credential, sealed. Every read and
/// every action is a call of the SDK, answered in process by the API's own routes
/// (`InProcessTransport`): the dashboard can do nothing a parent device cannot.
struct WebController {
    typealias Context = FamilySyncRequestContext

    let api: APIResponder
    let pages: WebPages
    let cookies: WebCookies
    let clock: any WallClock
    /// The server's base URL for QR payloads.
    let publicURL: PublicURL

    /// A browser's session lasts 30 days at most, a week idle, unless it signs out
    /// (`DashboardSession`); its device stays until revoked or signed out.
    static let sessionSeconds = Int(DashboardSession.absoluteLifetime)
    /// How often the sign-in pages look again while they wait: the claim counts against the
    /// per-address limit of calls without a credential (20 a minute by default).
    static let refreshSeconds = 4

    /// The routes under `/app`; `WebSecurityHeadersMiddleware`, on the whole router
    /// (`WebDashboard`), gives their answers the dashboard's headers and makes failures pages.
    func addRoutes(to router: MethodAwareRouter<Context>) {
        let app = router.group("app")
        app.get("", use: home)
            .get("app.css", use: styles)
            .post("sign-in", use: startSignIn)
            .get("sign-in", use: signInPage)
            .post("sign-out", use: signOut)
            .post("pairings/:id/confirm", use: confirmPairing)
            .post("language", use: chooseLanguage)
        addMemberRoutes(to: app)
        addAppRoutes(to: app)
        addMemberSettingsRoutes(to: app)
        addFamilySettingsRoutes(to: app)
        addLiveRoutes(to: app)
        addBudgetRoutes(to: app)
        addScheduleRoutes(to: app)
        addPrivacyRoutes(to: app)
        addDeviceRoutes(to: app)
    }

    // MARK: - Pages

    /// `GET /app/`: the family, or the sign-in page.
    @Sendable func home(_ request: Request, context: Context) async throws -> Response {
        var session = WebSession(request, cookies)
        guard let client = try await session.client(api, context) else {
            try await endSessionFromBeforeSessions(&session, context)
            return pages.render("signIn", WebPages.SignIn(frame: session.frame(session.strings["title.signIn"])), cookies: session.setCookies)
        }
        let me: DeviceBody
        switch await Self.outcome({ () async throws(FamilySyncError) in try await client.me() }) {
        case .success(let device): me = device
        case .failure(let error) where error.code == .authenticationRequired:
            // Revoked, rejected, or the family deleted: this browser is no longer a device.
            if let token = session.cookie(WebCookies.session) { try await cookies.end(session: token) }
            session.signOut()
            let page = WebPages.SignIn(frame: session.frame(session.strings["title.signIn"]), message: session.strings["message.notADevice"])
            return pages.render("signIn", page, cookies: session.setCookies)
        case .failure(let error): throw error
        }
        guard me.status == .active else { return session.redirect("/app/sign-in") }
        let frame = session.frame(session.strings["title.family"], signedIn: true, liveToken: try await liveToken(client))
        let page = try await familyPage(client, me, frame, session.strings, mayAskName: session.cookie(WebCookies.nameAsked) == nil)
        return pages.render("family", page, cookies: session.setCookies)
    }

    /// A browser signed in before the dashboard had sessions holds its device's credential in the
    /// session cookie, a working `/v1` credential: its device is revoked (as a sign-out does) and
    /// the cookie cleared, and the browser signs in again.
    private func endSessionFromBeforeSessions(_ session: inout WebSession, _ context: Context) async throws {
        guard let old = session.cookie(WebCookies.session), DeviceCredential(parsing: old) != nil else { return }
        let client = FamilySyncClient(serverURL: InProcessTransport.baseURL, credential: old, transport: InProcessTransport(api: api, context: context))
        let revoked = await Self.outcome { () async throws(FamilySyncError) in try await client.revokeDevice(try await client.me().id) }
        if case .failure(let error) = revoked, error.code != .authenticationRequired { throw error }
        session.signOut()
    }

    /// `GET /app/app.css`.
    @Sendable func styles(_ request: Request, context: Context) async throws -> Response {
        Response(status: .ok, headers: [.contentType: "text/css; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: WebStyles.css + WebStyles.chartCSS)))
    }

    /// `POST /app/sign-in`: a sign-in code for this browser (§3.1), its secret in a cookie.
    @Sendable func startSignIn(_ request: Request, context: Context) async throws -> Response {
        var session = WebSession(request, cookies)
        try await session.checkForm(request)
        let anonymous = FamilySyncClient(serverURL: InProcessTransport.baseURL, transport: InProcessTransport(api: api, context: context))
        let started = try await anonymous.startSignIn(
            device: DeviceRegistration(name: Self.deviceName(userAgent: request.headers[.userAgent]), platform: .web, timeZone: "UTC")
        )
        session.set(WebCookies.signIn, started.secret, maxAge: SignIn.ttlSeconds)
        return session.redirect("/app/sign-in")
    }

    /// `GET /app/sign-in`: the code while no parent has taken it, then the emoji until a parent
    /// confirms; each looks again every few seconds.
    @Sendable func signInPage(_ request: Request, context: Context) async throws -> Response {
        var session = WebSession(request, cookies)
        if let client = try await session.client(api, context) {
            return try await awaitingConfirmation(client, &session)
        }
        guard let secret = session.cookie(WebCookies.signIn) else { return session.redirect("/app/") }
        return try await awaitingParent(secret, request, context, &session)
    }

    /// Signed in: the emoji until a parent confirms, then the family.
    private func awaitingConfirmation(_ client: FamilySyncClient, _ session: inout WebSession) async throws -> Response {
        let me: DeviceBody
        switch await Self.outcome({ () async throws(FamilySyncError) in try await client.me() }) {
        case .success(let device): me = device
        case .failure(let error) where error.code == .authenticationRequired:
            // A browser still waiting when its pairing expired holds a credential that no longer
            // works (§3): it starts again, told why while it remembers the pairing.
            let waited = session.cookie(WebCookies.pairing) != nil
            if let token = session.cookie(WebCookies.session) { try await cookies.end(session: token) }
            session.signOut()
            guard waited else { return session.redirect("/app/") }
            let page = WebPages.SignIn(frame: session.frame(session.strings["title.signIn"]), message: session.strings["message.notConfirmed"])
            return pages.render("signIn", page, cookies: session.setCookies)
        case .failure(let error): throw error
        }
        if me.status == .active { return session.redirect("/app/") }
        let pairingID = session.cookie(WebCookies.pairing).flatMap(UUID.init(uuidString:))
        var emoji = ""
        if let pairingID {
            let pairing = try await client.pairing(pairingID)
            // Not confirmed in time: the credential will never work; start again.
            guard pairing.status == .accepted else {
                session.signOut()
                let page = WebPages.SignIn(frame: session.frame(session.strings["title.signIn"]), message: session.strings["message.notConfirmed"])
                return pages.render("signIn", page, cookies: session.setCookies)
            }
            emoji = pairing.verificationEmoji?.joined() ?? ""
        }
        let page = WebPages.SignInEmoji(
            frame: session.frame(session.strings["title.compareEmoji"], refreshSeconds: Self.refreshSeconds), emoji: emoji, pairingID: pairingID?.lowercased ?? ""
        )
        return pages.render("signInEmoji", page, cookies: session.setCookies)
    }

    /// Showing a code: the code and its QR code while no parent has taken it; once one has, a
    /// dashboard session for the device it claimed goes into the session cookie.
    private func awaitingParent(_ secret: String, _ request: Request, _ context: Context, _ session: inout WebSession) async throws -> Response {
        let anonymous = FamilySyncClient(serverURL: InProcessTransport.baseURL, transport: InProcessTransport(api: api, context: context))
        let claim: ClaimSignInResponse
        switch await Self.outcome({ () async throws(FamilySyncError) in try await anonymous.claimSignIn(secret: secret) }) {
        case .success(let answer): claim = answer
        case .failure(let error) where error.code == .pairingExpired || error.code == .notFound:
            session.clear(WebCookies.signIn)
            let page = WebPages.SignIn(frame: session.frame(session.strings["title.signIn"]), message: session.strings["message.codeExpired"])
            return pages.render("signIn", page, cookies: session.setCookies)
        case .failure(let error): throw error
        }
        if let credential = claim.credential, let device = claim.device, let parsed = DeviceCredential(parsing: credential) {
            session.clear(WebCookies.signIn)
            let signedIn = try await cookies.begin(familyID: parsed.familyID, deviceID: device.id, credential: credential)
            session.set(WebCookies.session, signedIn.token, maxAge: Self.sessionSeconds)
            // The forms from now on carry the session's token, not the one before the sign-in.
            if let bound = cookies.formToken(for: signedIn.token) { session.set(WebCookies.csrf, bound) }
            if let pairing = claim.pairing { session.set(WebCookies.pairing, pairing.id.lowercased, maxAge: SignIn.ttlSeconds) }
            return session.redirect("/app/sign-in")
        }
        var qr: String?
        if let code = SignInCode(parsing: claim.signIn.code) {
            qr = await QRCodeSVG.draw(SignInQRPayload(serverURL: publicURL.of(request), code: code).string)
        }
        let page = WebPages.SignInCode(
            frame: session.frame(session.strings["title.signInCode"], refreshSeconds: Self.refreshSeconds), code: claim.signIn.code, qrSVG: qr,
            expiresAt: Instant.format(claim.signIn.expiresAt)
        )
        return pages.render("signInCode", page, cookies: session.setCookies)
    }

    /// A call's answer or its failure, to branch on the failure's code.
    static func outcome<Value>(_ body: () async throws(FamilySyncError) -> Value) async -> Result<Value, FamilySyncError> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    // MARK: - Actions

    /// `POST /app/sign-out`: the browser's device is revoked, its cookies cleared.
    @Sendable func signOut(_ request: Request, context: Context) async throws -> Response {
        var session = WebSession(request, cookies)
        try await session.checkForm(request)
        if let client = try await session.client(api, context) {
            let revoked = await Self.outcome { () async throws(FamilySyncError) in try await client.revokeDevice(try await client.me().id) }
            // Already no device (401): nothing left to revoke.
            if case .failure(let error) = revoked, error.code != .authenticationRequired { throw error }
        }
        if let token = session.cookie(WebCookies.session) { try await cookies.end(session: token) }
        session.signOut()
        return session.redirect("/app/")
    }

    struct LanguageForm: WebForm {
        var csrf: String?
        var lang: String?
        /// The page the switch was pressed on.
        var back: String?
    }

    /// `POST /app/language` (`lang` en or ko): the dashboard's language for this browser, kept in
    /// a cookie; back to the page it was chosen on (a dashboard path only, never another site).
    @Sendable func chooseLanguage(_ request: Request, context: Context) async throws -> Response {
        var session = WebSession(request, cookies)
        let form = try await session.checkForm(request, as: LanguageForm.self)
        guard let language = form.lang.flatMap(WebLanguage.init(rawValue:)) else {
            throw FamilySyncError.badRequest("The language is one of \(WebLanguage.allCases.map(\.rawValue).joined(separator: ", ")).", field: "lang")
        }
        session.set(WebCookies.language, language.rawValue, maxAge: 365 * 86_400)
        let back = form.back ?? "/app/"
        let local = WebSecurityHeadersMiddleware.isDashboard(back) && !back.contains("//") && !back.contains("\\")
        return session.redirect(local ? back : "/app/")
    }

    /// `POST /app/pairings/{id}/confirm`: a parent lets in a device whose emoji match.
    @Sendable func confirmPairing(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        try await session.checkForm(request)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        _ = try await client.confirmPairing(try context.pathID())
        return session.redirect("/app/")
    }

    // MARK: - The family page

    /// `mayAskName`: the browser has not kept a device's name for its parent yet.
    func familyPage(_ client: FamilySyncClient, _ me: DeviceBody, _ frame: WebPages.Frame, _ strings: WebStrings, mayAskName: Bool = false) async throws -> WebPages.Family {
        async let devicesAsked = client.devices()
        async let membersAsked = client.members()
        async let pairingsAsked = client.pairings(status: .accepted)
        let (devices, members, pairings) = try await (devicesAsked, membersAsked, pairingsAsked)
        let now = clock.now()
        let memberNames = Dictionary(members.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var rows: [WebPages.Family.Device] = []
        for device in devices where device.status == .active {
            // A device that records usage has a tracking health (§10) and takes commands.
            let tracks = device.recordsUsage
            let health = tracks ? Self.light(try await client.health(of: device.id)) : nil
            let pending = device.role.takesCommands ? try await client.commands(of: device.id, status: .pending).count : 0
            rows.append(WebPages.Family.Device(
                id: device.id.lowercased, name: device.name, isThis: device.id == me.id, memberName: device.memberId.flatMap { memberNames[$0] } ?? "-",
                platform: strings["platform.\(device.platform.rawValue)"], lastSync: strings.ago(device.lastSyncAt, now: now), health: health?.light.rawValue,
                healthLabel: health.map { strings["health.\($0.label)"] } ?? "", pendingCommands: pending
            ))
        }
        let waiting = pairings.map { pairing in
            WebPages.Family.Pairing(
                id: pairing.id.lowercased, deviceName: devices.first { $0.id == pairing.deviceId }?.name ?? "A device",
                emoji: pairing.verificationEmoji?.joined() ?? ""
            )
        }
        // A parent member named after one of its devices ("Mom's iPhone", as the first device
        // named it) is asked once for the name of the person.
        let mine = members.first { $0.id == me.memberId }
        let namedAfterDevice = mine.map { member in devices.contains { member.deviceIds.contains($0.id) && $0.name == member.name } } ?? false
        return WebPages.Family(
            frame: frame, askName: mayAskName && namedAfterDevice ? mine.map { .init(memberID: $0.id.lowercased, current: $0.name) } : nil, pairings: waiting,
            members: members.map {
                WebPages.Family.Member(id: $0.id.lowercased, name: $0.name, role: $0.role.rawValue, roleLabel: strings["role.\($0.role.rawValue)"], deviceCount: $0.deviceIds.count)
            },
            devices: rows
        )
    }

    /// A device's light (Core's `TrackingLight`) and the word beside it: its status, or
    /// "degraded" when the light is amber.
    static func light(_ health: DeviceHealthBody) -> (light: TrackingLight, label: String) {
        let status = TrackingStatus(rawValue: health.status) ?? .unknown
        let light = TrackingLight.of(
            status: status, errorsToday: health.errorsToday, missedNotifications: health.missedNotifications,
            heartbeatGapsToday: health.gapsToday.filter { $0.detectionMethod == UsageGap.Method.heartbeatStale.rawValue }.count
        )
        return (light, light == .degraded ? "degraded" : status.rawValue)
    }

    /// "Firefox on Mac", from the browser's User-Agent: how the family sees this device.
    static func deviceName(userAgent: String?) -> String {
        let agent = userAgent ?? ""
        let browser = [("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari")].first { agent.contains($0.0) }?.1 ?? "A web browser"
        let system = [("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("Mac OS X", "Mac"), ("Windows", "Windows"), ("Linux", "Linux")]
            .first { agent.contains($0.0) }?.1
        return system.map { "\(browser) on \($0)" } ?? browser
    }
}

extension InProcessTransport {
    /// Requests in process name no real host.
    static let baseURL = URL(string: "http://localhost")!
}
