import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import Hummingbird

/// `/app/members/{id}`: a member's week and day, and what a parent does from there.
extension WebController {
    func addMemberRoutes(to app: RouterGroup<Context>) {
        app.get("members/:id", use: memberPage)
            .post("alerts/:id/dismiss", use: dismissAlert)
            .post("devices/:id/sync", use: requestSync)
    }

    /// The member's last seven days (ending today in the time zone of its first device): bars by
    /// day split by platform, today by category, the week's top apps, budgets, alerts, devices.
    @Sendable func memberPage(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        let memberID = try context.pathID()
        // The family's token before anything is read: a change after it, shown here or not, wakes the page.
        let token = try await liveToken(client)
        let (member, devices, timeZone) = try await memberView(client, memberID)
        let now = clock.now()
        let dates = Self.lastSevenDays(endingAt: now, in: timeZone)
        let today = dates.last!

        async let summariesAsked = client.memberSummaries(of: memberID, from: dates.first!, to: today)
        async let budgetsAsked = client.budgetStatus(of: memberID, date: today)
        async let alertsAsked = client.alerts(of: memberID, from: dates.first!, to: today)
        async let schedulesAsked = client.schedules(of: memberID)
        async let configuredAsked = client.budgets(of: memberID)
        let (summaries, budgets, alerts, schedules, configured) = try await (summariesAsked, budgetsAsked, alertsAsked, schedulesAsked, configuredAsked)
        var shields: [UUID: ShieldStateBody] = [:]
        var open: [UUID: [CommandBody]] = [:]
        for device in devices where device.role == .child {
            shields[device.id] = try await client.shieldState(of: device.id)
            open[device.id] = try await client.commands(of: device.id, status: .open)
        }

        let page = Self.memberPage(
            member: member, devices: devices, dates: dates, summaries: summaries, budgets: budgets, configuredBudgets: configured, alerts: alerts,
            schedules: schedules, shields: shields, openCommands: open, now: now, timeZone: timeZone,
            frame: session.frame(member.name, signedIn: true, liveToken: token), strings: session.strings
        )
        return pages.render("member", page, cookies: session.setCookies)
    }

    /// What the member page shows, from the API's answers (no I/O: `WebMemberPageTests` checks it).
    static func memberPage(
        member: MemberBody, devices: [DeviceBody], dates: [String], summaries: [MemberDayBody], budgets: BudgetStatusResponse, configuredBudgets: [Budget] = [],
        alerts: [AlertBody], schedules: [Schedule], shields: [UUID: ShieldStateBody], openCommands: [UUID: [CommandBody]] = [:], now: Date,
        timeZone: TimeZone = TimeZone(identifier: "UTC")!, frame: WebPages.Frame, strings: WebStrings = WebStrings(.en)
    ) -> WebPages.MemberPage {
        let byDate = Dictionary(summaries.map { ($0.date, $0) }, uniquingKeysWith: { first, _ in first })
        // The platforms of the member's devices, and any its days name, in a fixed order.
        let named = Set(devices.map(\.platform)).union(summaries.flatMap { $0.byPlatform.map(\.platform) })
        let platforms = DevicePlatform.allCases.filter(named.contains)
        let series = platforms.map { WebPages.MemberPage.Series(series: $0.rawValue, label: platformLabel($0, strings)) }
        var days: [WebPages.MemberPage.Day] = []
        var bars: [BarChartSVG.Bar] = []
        for date in dates {
            let day = byDate[date]
            let seconds = platforms.map { platform in day?.byPlatform.first { $0.platform == platform }?.seconds ?? 0 }
            let label = strings.day(date)
            days.append(WebPages.MemberPage.Day(
                date: date, label: label, cells: seconds.map(strings.duration), totalSeconds: day?.totalSeconds ?? 0,
                total: strings.duration(day?.totalSeconds ?? 0)
            ))
            bars.append(BarChartSVG.Bar(label: label, segments: zip(platforms, seconds).map {
                BarChartSVG.Segment(series: $0.0.rawValue, label: platformLabel($0.0, strings), seconds: $0.1)
            }))
        }
        let todayDay = byDate[dates.last!]
        let split = platforms.map { platform in "\(platformLabel(platform, strings)) \(strings.duration(todayDay?.byPlatform.first { $0.platform == platform }?.seconds ?? 0))" }
        let categories = (todayDay?.byCategory ?? []).sorted { $0.seconds > $1.seconds }
        let categoryBars = categories.map { category in
            BarChartSVG.Bar(label: categoryName(category.category, strings), segments: [BarChartSVG.Segment(
                series: (CategoryID.builtIn[category.category] ?? CategoryKind.neutral).rawValue, label: categoryName(category.category, strings), seconds: category.seconds
            )])
        }
        // The week's apps, summed over its days, most used first.
        var apps: [String: (app: MemberDayBody.App, seconds: Int)] = [:]
        for app in summaries.flatMap(\.byApp) { apps[app.logicalID, default: (app, 0)].seconds += app.seconds }
        let topApps = apps.values.sorted { $0.seconds != $1.seconds ? $0.seconds > $1.seconds : $0.app.logicalID < $1.app.logicalID }.prefix(10)
        let total = bars.reduce(0) { $0 + $1.total }
        return WebPages.MemberPage(
            frame: frame, memberID: member.id.lowercased, name: member.name, timeZone: timeZone.identifier, platformSplit: split.isEmpty ? strings["member.noDevices"] : split.joined(separator: " | "),
            weekChart: BarChartSVG(
                id: "week-chart", title: strings.format("member.weekTitle", member.name, strings.day(dates.first!), strings.day(dates.last!)),
                description: strings.format("member.weekDescription", strings.duration(total)), bars: bars, strings: strings
            ).render(),
            platforms: series, days: days,
            categoryChart: BarChartSVG(
                id: "category-chart", title: strings.format("member.todayTitle", member.name),
                description: categories.isEmpty ? strings["member.noUsageToday"] : categories.map { "\(categoryName($0.category, strings)) \(strings.duration($0.seconds))" }.joined(separator: ", "),
                bars: categoryBars, strings: strings
            ).render(),
            categories: categories.map { WebPages.MemberPage.Category(category: $0.category, name: categoryName($0.category, strings), seconds: $0.seconds, time: strings.duration($0.seconds), points: $0.points) },
            apps: topApps.map { app in
                WebPages.MemberPage.App(
                    logicalID: app.app.logicalID, path: pathSegment(app.app.logicalID), displayName: app.app.displayName, category: categoryName(app.app.category, strings), time: strings.duration(app.seconds),
                    states: devices.filter { $0.role == .child }.map { device in
                        let state = appState(app.app.logicalID, shield: shields[device.id], open: openCommands[device.id] ?? [])
                        return WebPages.MemberPage.AppState(device: device.name, state: state, label: strings["state.\(state)"])
                    }
                )
            },
            budgets: configuredBudgets.sorted { $0.budgetID < $1.budgetID }.map { budget in
                let status = budgets.budgets.first { $0.budgetID == budget.budgetID }
                let remaining = status.map { strings.format("unit.minutes", strings.number($0.remainingMinutes)) }
                let allowed = status.map { strings.format("unit.minutes", strings.number($0.budgetMinutes)) } ?? ""
                return WebPages.MemberPage.Budget(
                    budgetID: budget.budgetID, category: budget.scope == .all ? strings["budget.allScreenTime"] : categoryName(budget.scope.fieldValue, strings),
                    allowance: allowanceText(budget, on: dates.last!, strings), remaining: remaining, budget: allowed,
                    today: remaining.map { strings.format("budget.today", $0, allowed) } ?? "", over: status?.isOverBudget ?? false, enabled: budget.enabled
                )
            },
            alerts: alerts.filter { $0.dismissedAt == nil }.map {
                WebPages.MemberPage.Alert(id: $0.alertID.lowercased, message: $0.message, when: strings.ago($0.createdAt, now: now))
            },
            schedules: schedules.sorted { $0.name < $1.name }.map { scheduleRow($0, strings) },
            devices: devices.map { device in
                WebPages.MemberPage.Device(
                    id: device.id.lowercased, name: device.name, platform: platformLabel(device.platform, strings), lastSync: strings.ago(device.lastSyncAt, now: now),
                    shielded: shields[device.id].map { shieldedText($0, strings) } ?? "-",
                    pending: (openCommands[device.id] ?? []).map { commandText($0, strings) }
                )
            }
        )
    }

    /// A device's sync button: `member`, the page to go back to.
    struct SyncForm: WebForm {
        var csrf: String?
        var member: String?
    }

    /// `POST /app/alerts/{id}/dismiss`, back to the alert's member.
    @Sendable func dismissAlert(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        try await session.checkForm(request)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        let alert = try await client.dismissAlert(try context.pathID())
        return session.redirect("/app/members/\(alert.memberId.lowercased)")
    }

    /// `POST /app/devices/{id}/sync`: a `request_sync` command to the device.
    @Sendable func requestSync(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        let form = try await session.checkForm(request, as: SyncForm.self)
        guard let client = try await session.client(api, context) else { return session.redirect("/app/") }
        _ = try await client.sendCommand(to: try context.pathID(), CreateCommandRequest(commandType: "request_sync"))
        let back = form.member.flatMap(UUID.init(uuidString:)).map { "/app/members/\($0.lowercased)" } ?? "/app/"
        return session.redirect(back)
    }

    /// A schedule as a line: its days, its hours and what it shields or allows.
    static func scheduleRow(_ schedule: Schedule, _ strings: WebStrings = WebStrings(.en)) -> WebPages.MemberPage.Schedule {
        let days = schedule.weekdays.count == 7 ? strings["schedule.everyDay"] : schedule.weekdays.sorted().map { strings["weekday.short.\($0 - 1)"] }.joined(separator: " ")
        let targets = schedule.applications + schedule.categories.map { categoryName($0.rawValue, strings) }
        let list = targets.isEmpty ? strings["schedule.everything"] : targets.joined(separator: ", ")
        let what = strings.format(schedule.mode == .allowOnly ? "schedule.allowsOnly" : "schedule.shields", list)
        return WebPages.MemberPage.Schedule(
            scheduleID: schedule.scheduleID, name: schedule.name, enabled: schedule.enabled, days: days, start: clock(schedule.start), end: clock(schedule.end),
            what: what
        )
    }

    /// "60 min a day, Sat 120 min", or "30 h a month (60 min today)".
    static func allowanceText(_ budget: Budget, on date: String, _ strings: WebStrings = WebStrings(.en)) -> String {
        switch budget.period {
        case .monthly:
            return strings.format("budget.monthly", String(budget.monthlyHours ?? 0), String(budget.allowanceMinutes(on: date) ?? 0))
        case .daily:
            let days = Budget.weekdays.enumerated().compactMap { index, key in
                budget.weekdayMinutes[key].map { strings.format("budget.onDay", strings["weekday.short.\(index)"], String($0)) }
            }
            return ([budget.dailyMinutes.map { strings.format("budget.daily", String($0)) }].compactMap { $0 } + days).joined(separator: ", ")
        }
    }

    /// The seven dates (`YYYY-MM-DD`) ending with `now`'s in `timeZone`.
    static func lastSevenDays(endingAt now: Date, in timeZone: TimeZone) -> [String] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return (0..<7).reversed().map { back in
            let day = calendar.date(byAdding: .day, value: -back, to: now)!
            let parts = calendar.dateComponents([.year, .month, .day], from: day)
            return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        }
    }

    static func platformLabel(_ platform: DevicePlatform, _ strings: WebStrings = WebStrings(.en)) -> String {
        strings["platform.\(platform.rawValue)"]
    }

    /// A category's name in the page's language: a built-in's, or the id of a family's own.
    static func categoryName(_ id: String, _ strings: WebStrings) -> String {
        CategoryID.builtIn[id] != nil ? strings["category.\(id)"] : id
    }

    /// An app on a device: a block or unblock it has not carried out yet says so (the newest
    /// such command that names the app, or the whole device); otherwise what it shields now.
    /// One of blocked, blocking pending, unblocking pending, unblocked (`state.…` in the catalog).
    static func appState(_ logicalID: String, shield: ShieldStateBody?, open: [CommandBody]) -> String {
        let naming = open.filter { ["block", "unblock"].contains($0.commandType) && (appsNamed(by: $0).map { $0.contains(logicalID) } ?? true) }
        if let newest = naming.max(by: { $0.createdAt < $1.createdAt }) {
            return newest.commandType == "block" ? "blocking pending" : "unblocking pending"
        }
        guard let shield else { return "unblocked" }
        return shield.deviceBlocked || shield.blockedApps.contains(logicalID) ? "blocked" : "unblocked"
    }

    /// The apps a block or unblock names (`{"logicalIDs": […]}`, §7.1); nil: the whole device.
    static func appsNamed(by command: CommandBody) -> [String]? {
        guard case .array(let ids)? = command.payload["logicalIDs"] else { return nil }
        return ids.compactMap { if case .string(let id) = $0 { id } else { nil } }
    }

    /// "block: tiktok", "block: the whole device", "request sync".
    static func commandText(_ command: CommandBody, _ strings: WebStrings = WebStrings(.en)) -> String {
        switch command.commandType {
        case "block", "unblock": strings.format("command.\(command.commandType)", appsNamed(by: command).map { $0.joined(separator: ", ") } ?? strings["command.wholeDevice"])
        case "request_sync", "update_config": strings["command.\(command.commandType)"]
        default: command.commandType
        }
    }

    /// "Games until 07:00", "the whole device", or "nothing".
    static func shieldedText(_ state: ShieldStateBody, _ strings: WebStrings = WebStrings(.en)) -> String {
        if state.deviceBlocked { return strings["shield.wholeDevice"] }
        var parts: [String] = state.activeSchedules.map { strings.format("shield.until", $0.name, Instant.format($0.until)) }
        if !state.blockedApps.isEmpty { parts.append(strings.format("shield.blocked", state.blockedApps.joined(separator: ", "))) }
        return parts.isEmpty ? strings["shield.nothing"] : parts.joined(separator: "; ")
    }
}
