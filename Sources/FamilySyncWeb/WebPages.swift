import FamilySyncCore
import FamilySyncServer
import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// The dashboard's pages: the templates, compiled once, and what each page shows.
struct WebPages: Sendable {
    let library: MustacheLibrary

    /// `templates`: the dashboard's, or (in `WebTemplateTests`) the same marked section by section.
    init(templates texts: [String: String] = WebTemplates.all) {
        var templates: [String: MustacheTemplate] = [:]
        for (name, text) in texts {
            // The templates are this file's constants: one that does not parse is a programming error.
            templates[name] = try! MustacheTemplate(string: text)
        }
        library = MustacheLibrary(templates: templates)
    }

    /// What every page's head needs.
    struct Frame {
        var title: String
        var csrf: String
        /// The page's language (`en`, `ko`) and its words, `{{frame.t.key}}` in the templates.
        var lang = WebLanguage.en.rawValue
        var t = WebCatalog.english
        /// The language switch: the other language, by its own name, and the page to come back to.
        var otherLanguage = WebLanguage.ko.rawValue
        var otherLanguageName = WebLanguage.ko.name
        var path = "/app/"
        /// Whether the header shows the language switch (not on a failure page, which has no form token).
        var switchable = true
        var signedIn = false
        var refreshSeconds: Int?
        /// The family's change token as the page was read: the page runs `/app/live.js`, which
        /// polls from it and refreshes what changed. Nil: a page that stays as it is.
        var liveToken: String?
    }

    struct SignIn {
        var frame: Frame
        var message: String?
    }

    struct SignInCode {
        var frame: Frame
        var code: String
        var qrSVG: String?
        var expiresAt: String
    }

    struct SignInEmoji {
        var frame: Frame
        var emoji: String
        var pairingID: String
    }

    struct Family {
        struct Pairing {
            var id: String
            var deviceName: String
            var emoji: String
        }

        struct Member {
            var id: String
            var name: String
            var role: String
            var roleLabel: String
            var deviceCount: Int
        }

        struct Device {
            var id: String
            var name: String
            var isThis: Bool
            var memberName: String
            var platform: String
            var lastSync: String
            /// healthy, stale, inactive or unknown (the light's class); nil for a device that does not track.
            var health: String?
            /// The status in the page's language.
            var healthLabel: String
            var pendingCommands: Int
        }

        /// The signed-in parent's member, when it is named after a device: asked for a name.
        struct AskName {
            var memberID: String
            var current: String
        }

        var frame: Frame
        var askName: AskName?
        let pairings: [Pairing]
        /// Stored, not computed: Mustache's reflection sees stored properties only.
        let hasPairings: Bool
        var members: [Member]
        var devices: [Device]

        init(frame: Frame, askName: AskName? = nil, pairings: [Pairing], members: [Member], devices: [Device]) {
            self.frame = frame
            self.askName = askName
            self.pairings = pairings
            hasPairings = !pairings.isEmpty
            self.members = members
            self.devices = devices
        }
    }

    /// `/app/devices/{id}` (PROTOCOL §10): a device's tracking health today.
    struct DevicePage {
        struct Gap {
            var from: String
            var to: String
            var minutes: Int
            var kind: String
            var method: String
        }

        struct ExtensionError {
            var when: String
            var event: String
            var action: String
            var outcome: String
            var description: String
        }

        var frame: Frame
        var deviceID: String
        var name: String
        var platform: String
        var memberName: String
        var timeZone: String
        var date: String
        var status: String
        var statusLabel: String
        var lastHeartbeat: String
        var memory: String
        var missedNotifications: Int
        var sequenceResets: Int
        var errorsToday: Int
        var gapMinutes: Int
        var timeline: String
        var gaps: [Gap]
        var errors: [ExtensionError]
    }

    /// `/app/privacy` (PROTOCOL §15): retention, downloads, the audit log.
    struct Privacy {
        struct Kind {
            var kind: String
            var label: String
            var days: Int
            /// The family's own days, as the field shows them; "" when it follows the maximum.
            var familyDays: String
            var familySet: Bool
            var maximumDays: Int
            /// The server's reason for refusing what was typed here.
            var error: String?
        }

        struct Member {
            var id: String
            var name: String
        }

        struct Event {
            var id: String
            var when: String
            var who: String
            var address: String
            var action: String
            var subject: String
            var concerns: String
        }

        var frame: Frame
        var saved: Bool
        /// A refusal that names no kind.
        var error: String?
        var maximumDays: Int
        var retention: [Kind]
        var members: [Member]
        var events: [Event]
    }

    struct MemberPage {
        struct Series {
            var series: String
            var label: String
        }

        struct Day {
            var date: String
            var label: String
            var cells: [String]
            var totalSeconds: Int
            var total: String
        }

        struct Category {
            var category: String
            /// Its name in the page's language.
            var name: String
            var seconds: Int
            var time: String
            var points: Int
        }

        struct App {
            var logicalID: String
            /// The logicalID as a path segment, for its page.
            var path: String
            var displayName: String
            var category: String
            var time: String
            /// On each child device: blocked, blocking pending, unblocking pending, or unblocked.
            var states: [AppState]
        }

        struct AppState {
            var device: String
            /// blocked, blocking pending, unblocking pending, or unblocked (the page's `data-state`).
            var state: String
            var label: String
        }

        struct Budget {
            var budgetID: String
            var category: String
            /// "60 min a day", "30 h a month (60 min today)".
            var allowance: String
            /// Today's: nil for a budget that is off.
            var remaining: String?
            var budget: String
            /// "Today 28 min left of 60 min." in the page's language.
            var today: String
            var over: Bool
            var enabled: Bool
        }

        struct Alert {
            var id: String
            var message: String
            var when: String
        }

        struct Device {
            var id: String
            var name: String
            var platform: String
            var lastSync: String
            var shielded: String
            /// The commands it has not carried out yet ("block: tiktok"), until it does.
            var pending: [String]
        }

        struct Schedule {
            var scheduleID: String
            var name: String
            var enabled: Bool
            var days: String
            var start: String
            var end: String
            /// "shields Games, TikTok" or "allows only Khan Academy".
            var what: String
        }

        var frame: Frame
        var memberID: String
        var name: String
        /// The member's days and schedules are read in it.
        var timeZone: String
        var platformSplit: String
        var weekChart: String
        var platforms: [Series]
        var days: [Day]
        var categoryChart: String
        var categories: [Category]
        var apps: [App]
        var budgets: [Budget]
        var alerts: [Alert]
        var schedules: [Schedule]
        var devices: [Device]
    }

    struct Failure {
        var frame: Frame
        var code: String
        var reason: String
    }

    func render(_ template: String, _ object: Any, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], cookies: [Cookie] = []) -> Response {
        var fields = headers
        fields[.contentType] = "text/html; charset=utf-8"
        var response = Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: html(template, object))))
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }

    /// A page's HTML. Mustache reads `object` by reflection: stored properties only, so a
    /// template may read no computed property, method or extension's var (`WebTemplateTests`).
    func html(_ template: String, _ object: Any) -> String {
        // A page's fields live beside its frame's: both are on the context stack.
        library.render(object, withTemplate: template) ?? ""
    }

    /// §1.1's error as a page in `strings`' language (the reason is the server's own, in English).
    func errorPage(_ error: FamilySyncError, strings: WebStrings = WebStrings(.en), headers: HTTPFields = [:]) -> Response {
        let key = switch error.code {
        case .badRequest: "error.badRequest"
        case .authenticationRequired: "error.signIn"
        case .accessDenied: "error.denied"
        case .notFound: "error.notFound"
        case .pairingExpired: "error.expired"
        default: "error.other"
        }
        var frame = Frame(title: strings[key], csrf: "")
        frame.lang = strings.language.rawValue
        frame.t = strings.catalog
        frame.switchable = false
        return render("error", Failure(frame: frame, code: error.code.rawValue, reason: error.reason), status: error.code.httpStatus, headers: headers)
    }
}
