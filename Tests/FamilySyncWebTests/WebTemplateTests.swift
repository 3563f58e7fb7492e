@testable import FamilySyncWeb
import Foundation
import Testing

/// Mustache reads a page's model by reflection, which sees stored properties only: a template
/// that reads a computed property, a method or an extension's var finds nothing, and its section
/// never shows (the family page's devices waiting to join did not). So every name every
/// template reads must be a stored property of a model in scope, and every section of every page
/// must show when its guard holds.
@Suite struct WebTemplateTests {
    typealias Pages = WebPages

    /// For each page, models that between them make every section's guard true and false: every
    /// list full and empty, every optional set and nil, every flag true and false.
    static var samples: [String: [Any]] {
        let full = Pages.Frame(title: "Title", csrf: "token", signedIn: true, refreshSeconds: 4, liveToken: "t1")
        let bare = Pages.Frame(title: "Title", csrf: "token")
        typealias Family = Pages.Family
        typealias Member = Pages.MemberPage
        let schedule = Member.Schedule(scheduleID: "s1", name: "Bedtime", enabled: true, days: "every day", start: "21:00", end: "07:00", what: "shields tiktok")
        var off = schedule
        off.enabled = false
        let budget = Member.Budget(budgetID: "b1", category: "games", allowance: "60 min a day", remaining: "5 min", budget: "60 min", today: "Today 5 min left of 60 min.", over: true, enabled: true)
        var under = budget
        under.over = false
        under.remaining = nil
        under.enabled = false
        func member(_ frame: Pages.Frame, full: Bool, schedules: [Member.Schedule], budgets: [Member.Budget]) -> Member {
            Member(
                frame: frame, memberID: "m1", name: "Johnny", timeZone: "Europe/Berlin", platformSplit: "iPadOS 1h", weekChart: "<svg id=\"week\"></svg>",
                platforms: full ? [.init(series: "ipados", label: "iPadOS")] : [],
                days: full ? [.init(date: "2026-11-23", label: "Mon 23", cells: ["1h"], totalSeconds: 3600, total: "1h")] : [],
                categoryChart: "<svg id=\"categories\"></svg>",
                categories: full ? [.init(category: "games", name: "Games", seconds: 60, time: "1m", points: 1)] : [],
                apps: full ? [.init(logicalID: "tiktok", path: "tiktok", displayName: "TikTok", category: "social", time: "1h", states: [.init(device: "iPad", state: "blocked", label: "blocked")])] : [],
                budgets: budgets, alerts: full ? [.init(id: "a1", message: "Over budget", when: "just now")] : [], schedules: schedules,
                devices: full ? [.init(id: "d1", name: "iPad", platform: "iPadOS", lastSync: "just now", shielded: "nothing", pending: budgets.first?.over == true ? ["block: tiktok"] : [])] : []
            )
        }
        return [
            "signIn": [Pages.SignIn(frame: full, message: "A message"), Pages.SignIn(frame: bare)],
            "signInCode": [
                Pages.SignInCode(frame: full, code: "K7QF-M2XA", qrSVG: "<svg></svg>", expiresAt: "later"),
                Pages.SignInCode(frame: bare, code: "K7QF-M2XA", expiresAt: "later"),
            ],
            "signInEmoji": [Pages.SignInEmoji(frame: full, emoji: "🐶🐱", pairingID: "p1")],
            "family": [
                Family(
                    frame: full, askName: .init(memberID: "m0", current: "Mom's iPhone"), pairings: [.init(id: "p1", deviceName: "Johnny's iPad", emoji: "🐶🐱")],
                    members: [.init(id: "m1", name: "Johnny", role: "child", roleLabel: "child", deviceCount: 1)],
                    devices: [.init(id: "d1", name: "iPad", isThis: true, memberName: "Johnny", platform: "ipados", lastSync: "just now", health: "healthy", healthLabel: "healthy", pendingCommands: 1)]
                ),
                Family(
                    frame: bare, pairings: [], members: [],
                    devices: [.init(id: "d1", name: "iPad", isThis: false, memberName: "-", platform: "ipados", lastSync: "never", health: nil, healthLabel: "", pendingCommands: 0)]
                ),
            ],
            "device": [
                Pages.DevicePage(
                    frame: full, deviceID: "d1", name: "iPad", platform: "iPadOS", memberName: "Johnny", timeZone: "Europe/Berlin", date: "2026-11-26",
                    status: "healthy", statusLabel: "healthy", lastHeartbeat: "just now", memory: "4.5 MB", missedNotifications: 1, sequenceResets: 0, errorsToday: 1, gapMinutes: 10,
                    timeline: "<svg id=\"gaps\"></svg>", gaps: [.init(from: "10:00", to: "10:10", minutes: 10, kind: "no heartbeat", method: "heartbeat_stale")],
                    errors: [.init(when: "just now", event: "intervalDidStart", action: "record_usage", outcome: "failed", description: "disk full")]
                ),
                Pages.DevicePage(
                    frame: bare, deviceID: "d1", name: "iPad", platform: "iPadOS", memberName: "-", timeZone: "UTC", date: "2026-11-26", status: "unknown", statusLabel: "unknown",
                    lastHeartbeat: "never", memory: "not reported", missedNotifications: 0, sequenceResets: 0, errorsToday: 0, gapMinutes: 0,
                    timeline: "<svg id=\"gaps\"></svg>", gaps: [], errors: []
                ),
            ],
            "privacy": [
                Pages.Privacy(
                    frame: full, saved: true, error: "Not saved.", maximumDays: 400,
                    retention: [
                        .init(kind: "usageSessions", label: "App sessions", days: 30, familyDays: "30", familySet: true, maximumDays: 400, error: "Too long."),
                        .init(kind: "audit", label: "Audit", days: 400, familyDays: "", familySet: false, maximumDays: 400),
                    ],
                    members: [.init(id: "m1", name: "Johnny")],
                    events: [.init(id: "1", when: "just now", who: "Mom's iPhone", address: "127.0.0.1", action: "record.saved", subject: "Budget budget-x", concerns: "Johnny")]
                ),
                Pages.Privacy(frame: bare, saved: false, maximumDays: 400, retention: [], members: [], events: []),
            ],
            "member": [
                member(full, full: true, schedules: [schedule], budgets: [budget]),
                member(bare, full: false, schedules: [], budgets: []),
                member(bare, full: true, schedules: [off], budgets: [under]),
            ],
            "budgetForm": [budgetForm(full, refused: true), budgetForm(bare, refused: false)],
            "scheduleForm": [scheduleForm(full, refused: true), scheduleForm(bare, refused: false)],
            "appSettings": [appSettings(full, refused: true), appSettings(bare, refused: false)],
            "memberSettings": [memberSettings(full, refused: true), memberSettings(bare, refused: false)],
            "familySettings": [familySettings(full, refused: true), familySettings(bare, refused: false)],
            "error": [Pages.Failure(frame: bare, code: "NOT_FOUND", reason: "No such member."), Pages.Failure(frame: full, code: "NOT_FOUND", reason: "Gone.")],
        ]
    }

    /// A budget form: every field refused, or none; choices chosen or not.
    static func budgetForm(_ frame: Pages.Frame, refused: Bool) -> Pages.BudgetForm {
        var page = Pages.BudgetForm(
            frame: frame, memberID: "m1", memberName: "Johnny", budgetID: refused ? "" : "all", isNew: refused, error: refused ? "Not saved." : nil,
            categories: [.init(value: "*", label: "All", selected: true), .init(value: "gaming", label: "Gaming", selected: false)],
            periods: [.init(value: "daily", label: "Daily", selected: refused), .init(value: "monthly", label: "Monthly", selected: !refused)],
            weekdays: [.init(key: "mon", label: "Monday", field: WebField("30"))], monthlyFormula: "30 h"
        )
        for path in Pages.BudgetForm.fields.values {
            page[keyPath: path] = WebField(refused ? "on" : "")
            if refused { page[keyPath: path].error = "Wrong." }
        }
        return page
    }

    static func scheduleForm(_ frame: Pages.Frame, refused: Bool) -> Pages.ScheduleForm {
        var page = Pages.ScheduleForm(
            frame: frame, memberID: "m1", memberName: "Johnny", timeZone: "UTC", scheduleID: refused ? "" : "bedtime", isNew: refused,
            error: refused ? "Not saved." : nil, days: [.init(number: 1, label: "Monday", checked: true), .init(number: 2, label: "Tuesday", checked: false)],
            modes: [.init(value: "shield", label: "Shield", selected: refused), .init(value: "allowOnly", label: "Allow", selected: !refused)],
            categoryChoices: [.init(value: "gaming", label: "Gaming", selected: refused), .init(value: "learning", label: "Learning", selected: !refused)]
        )
        for path in Pages.ScheduleForm.fields.values {
            page[keyPath: path] = WebField(refused ? "on" : "")
            if refused { page[keyPath: path].error = "Wrong." }
        }
        return page
    }

    static func appSettings(_ frame: Pages.Frame, refused: Bool) -> Pages.AppSettings {
        var page = Pages.AppSettings(
            frame: frame, memberID: "m1", memberName: "Johnny", logicalID: "tiktok", path: "tiktok", displayName: "TikTok", configured: refused, saved: !refused,
            error: refused ? "Not saved." : nil, categories: [.init(value: "gaming", label: "Gaming", selected: refused), .init(value: "other", label: "Other", selected: !refused)],
            devices: refused ? [.init(id: "d1", name: "iPad", state: "blocking pending", label: "blocking pending")] : []
        )
        for path in Pages.AppSettings.fields.values where refused { page[keyPath: path].error = "Wrong." }
        return page
    }

    static func memberSettings(_ frame: Pages.Frame, refused: Bool) -> Pages.MemberSettings {
        let target = Pages.MemberSettings.Device(
            id: "d1", name: "iPad", platform: "iPadOS", lastSync: "just now", isThis: refused, targets: [.init(value: "m2", label: "Emma", selected: false)], canMove: true
        )
        var other = target
        other.isThis = !refused
        other.targets = []
        other.canMove = false
        var page = Pages.MemberSettings(
            frame: frame, memberID: "m1", memberName: "Johnny", role: "child", done: refused ? nil : "Renamed.", hasPIN: refused,
            devices: refused ? [target, other] : [], error: refused ? "Not saved." : nil
        )
        for path in Pages.MemberSettings.fields.values where refused { page[keyPath: path].error = "Wrong." }
        return page
    }

    static func familySettings(_ frame: Pages.Frame, refused: Bool) -> Pages.FamilySettings {
        var page = Pages.FamilySettings(
            frame: frame, categories: refused ? [.init(id: "x-chores", name: "Chores", kind: "learning", kindLabel: "learning", own: true), .init(id: "gaming", name: "Gaming", kind: "neutral", kindLabel: "neither", own: false)] : [],
            kinds: [.init(value: "neutral", label: "neutral", selected: true), .init(value: "learning", label: "learning", selected: false)], saved: !refused,
            recoveryCode: refused ? "ABCD-EFGH" : nil, error: refused ? "Not saved." : nil
        )
        for path in Pages.FamilySettings.fields.values where refused { page[keyPath: path].error = "Wrong." }
        return page
    }

    /// The pages: every template no other template includes.
    static var pageNames: Set<String> {
        let included = WebTemplates.all.values.flatMap { text in
            MustacheTags.scan(text).compactMap { $0.sigil == ">" ? $0.name : nil }
        }
        return Set(WebTemplates.all.keys).subtracting(included)
    }

    @Test func everyPageHasSamples() {
        #expect(Set(Self.samples.keys) == Self.pageNames, "a page without samples goes unchecked")
    }

    /// Every `{{name}}`, `{{#name}}` and `{{^name}}`, at the top or in a section, is a stored
    /// property of the page's model or of what an enclosing section holds.
    @Test(arguments: Array(pageNames).sorted())
    func everyNameATemplateReadsIsStored(page: String) throws {
        let template = try MustacheTags.tree(page)
        var problems: Set<String> = []
        for sample in Self.samples[page] ?? [] {
            MustacheTags.walk(template, stack: [sample], problems: &problems)
        }
        #expect(problems.isEmpty, "\(page) reads what Mustache's reflection cannot see: \(problems.sorted())")
    }

    /// Each section, and each inverted section, of each page shows for one of its samples: the
    /// templates are rendered with a marker at the start of every section.
    @Test(arguments: Array(pageNames).sorted())
    func everySectionOfEveryPageShows(page: String) throws {
        var marked: [String: String] = [:]
        var markers: [String: [String]] = [:]
        for (name, text) in WebTemplates.all { (marked[name], markers[name]) = MustacheTags.markSections(text, template: name) }
        let pages = WebPages(templates: marked)
        let html = (Self.samples[page] ?? []).map { pages.html(page, $0) }.joined()
        let expected = try MustacheTags.included(page).flatMap { markers[$0] ?? [] }
        #expect(!expected.isEmpty)
        let missing = expected.filter { !html.contains($0) }
        #expect(missing.isEmpty, "sections of \(page) that no sample shows: \(missing)")
    }
}

/// Enough of Mustache's syntax to read the dashboard's templates: variables (`{{x}}`, `{{{x}}}`,
/// `{{&x}}`), sections, inverted sections, partials and comments. Anything else fails the test.
enum MustacheTags {
    struct Tag {
        var range: Range<String.Index>
        /// "" for a variable, else one of `# ^ / > !`.
        var sigil: String
        var name: String
    }

    indirect enum Node {
        case variable(String)
        case section(String, inverted: Bool, [Node])
        case partial(String)
    }

    struct Unsupported: Error, CustomStringConvertible {
        var description: String
    }

    static func scan(_ text: String) -> [Tag] {
        var tags: [Tag] = []
        var rest = text.startIndex
        while let open = text.range(of: "{{", range: rest..<text.endIndex) {
            let triple = text[open.upperBound...].hasPrefix("{")
            guard let close = text.range(of: triple ? "}}}" : "}}", range: open.upperBound..<text.endIndex) else { break }
            var inside = text[(triple ? text.index(after: open.upperBound) : open.upperBound)..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            var sigil = ""
            if !triple, let first = inside.first, !first.isLetter, !first.isNumber, first != "." {
                sigil = String(first)
                inside = String(inside.dropFirst()).trimmingCharacters(in: .whitespaces)
            }
            tags.append(Tag(range: open.lowerBound..<close.upperBound, sigil: sigil == "&" ? "" : sigil, name: inside))
            rest = close.upperBound
        }
        return tags
    }

    /// The template as a tree of what it reads, its partials expanded.
    static func tree(_ template: String) throws -> [Node] {
        guard let text = WebTemplates.all[template] else { throw Unsupported(description: "no template \(template)") }
        var levels: [(name: String, inverted: Bool, nodes: [Node])] = [("", false, [])]
        for tag in scan(text) {
            if tag.name.contains("(") { throw Unsupported(description: "\(template): a transform, \(tag.name); teach this test transforms") }
            switch tag.sigil {
            case "": levels[levels.count - 1].nodes.append(.variable(tag.name))
            case "#", "^": levels.append((tag.name, tag.sigil == "^", []))
            case "/":
                let level = levels.removeLast()
                guard level.name == tag.name, !levels.isEmpty else { throw Unsupported(description: "\(template): {{/\(tag.name)}} closes {{\(level.name)}}") }
                levels[levels.count - 1].nodes.append(.section(level.name, inverted: level.inverted, level.nodes))
            case ">": levels[levels.count - 1].nodes.append(contentsOf: try self.tree(tag.name))
            case "!": break
            default: throw Unsupported(description: "\(template): {{\(tag.sigil)…}} is not supported by this test")
            }
        }
        guard levels.count == 1 else { throw Unsupported(description: "\(template): {{#\(levels.last!.name)}} is not closed") }
        return levels[0].nodes
    }

    /// The template and every template it includes.
    static func included(_ template: String) throws -> [String] {
        guard let text = WebTemplates.all[template] else { throw Unsupported(description: "no template \(template)") }
        return try [template] + scan(text).filter { $0.sigil == ">" }.flatMap { try included($0.name) }
    }

    /// The template with a comment at the start of each section, and those comments.
    static func markSections(_ text: String, template: String) -> (String, [String]) {
        var marked = ""
        var markers: [String] = []
        var rest = text.startIndex
        for tag in scan(text) where tag.sigil == "#" || tag.sigil == "^" {
            let marker = "<!--\(template) \(tag.sigil)\(tag.name) \(markers.count)-->"
            marked += text[rest..<tag.range.upperBound] + marker
            markers.append(marker)
            rest = tag.range.upperBound
        }
        return (marked + text[rest...], markers)
    }

    /// A stored property's value as swift-mustache reads it: nil for no such property, `.some(nil)`
    /// for an optional that holds nothing.
    static func stored(_ name: Substring, of object: Any) -> Any?? {
        // The catalog (`frame.t`): Mustache reads a dictionary by key; a missing key reads nothing.
        if let dictionary = object as? [String: String] { return dictionary[String(name)].map { .some($0) } }
        guard let child = Mirror(reflecting: object).children.first(where: { $0.label == String(name) }) else { return nil }
        let mirror = Mirror(reflecting: child.value)
        guard mirror.displayStyle == .optional else { return .some(child.value) }
        return .some(mirror.children.first?.value)
    }

    /// What `name` reads, as swift-mustache looks it up: the innermost context whose property holds
    /// a value, then down the name's dots. nil: no context stores it.
    static func resolve(_ name: String, in stack: [Any]) -> Any?? {
        let parts = name.split(separator: ".")
        var found = false
        for object in stack.reversed() {
            guard let value = stored(parts[0], of: object) else { continue }
            found = true
            guard var value else { continue }
            for part in parts.dropFirst() {
                guard let next = stored(part, of: value) else { return nil }
                guard let unwrapped = next else { return .some(nil) }
                value = unwrapped
            }
            return .some(value)
        }
        return found ? .some(nil) : nil
    }

    static func walk(_ nodes: [Node], stack: [Any], problems: inout Set<String>) {
        for node in nodes {
            switch node {
            case .partial: break
            case .variable(let name):
                if name != ".", resolve(name, in: stack) == nil { problems.insert(name) }
            case .section(let name, let inverted, let body):
                guard let value = resolve(name, in: stack) else {
                    problems.insert(name)
                    continue
                }
                // What the section renders its body with, as swift-mustache decides it.
                var contexts: [Any] = []
                var shows = false
                switch value {
                case .none: shows = false
                case .some(let flag as Bool): shows = flag
                case .some(let list) where Mirror(reflecting: list).displayStyle == .collection:
                    contexts = Mirror(reflecting: list).children.map(\.value)
                    shows = !contexts.isEmpty
                case .some(let object):
                    contexts = [object]
                    shows = true
                }
                if inverted {
                    if !shows { walk(body, stack: stack, problems: &problems) }
                } else if shows {
                    if contexts.isEmpty { walk(body, stack: stack, problems: &problems) }
                    for context in contexts { walk(body, stack: stack + [context], problems: &problems) }
                }
            }
        }
    }
}
