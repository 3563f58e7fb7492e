import FamilySyncCore
import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// The dashboard's pages: the templates, compiled once, and what each page shows.
struct WebPages: Sendable {
    let library: MustacheLibrary

    init() {
        var templates: [String: MustacheTemplate] = [:]
        for (name, text) in WebTemplates.all {
            // The templates are this file's constants: one that does not parse is a programming error.
            templates[name] = try! MustacheTemplate(string: text)
        }
        library = MustacheLibrary(templates: templates)
    }

    /// What every page's head needs.
    struct Frame {
        var title: String
        var csrf: String
        var signedIn = false
        var refreshSeconds: Int?
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
            var deviceCount: Int
        }

        struct Device {
            var id: String
            var name: String
            var isThis: Bool
            var memberName: String
            var platform: String
            var lastSync: String
            /// healthy, degraded, stale or unknown; nil for a device that does not track.
            var health: String?
            var pendingCommands: Int
        }

        var frame: Frame
        var pairings: [Pairing]
        var hasPairings: Bool { !pairings.isEmpty }
        var members: [Member]
        var devices: [Device]
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
            var seconds: Int
            var time: String
            var points: Int
        }

        struct App {
            var logicalID: String
            var displayName: String
            var category: String
            var time: String
        }

        struct Budget {
            var budgetID: String
            var category: String
            var remaining: String
            var budget: String
            var over: Bool
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

    func render(_ template: String, _ object: Any, status: HTTPResponse.Status = .ok, headers: [HTTPField] = []) -> Response {
        // A page's fields live beside its frame's: both are on the context stack.
        let html = library.render(object, withTemplate: template) ?? ""
        var fields = HTTPFields(headers)
        fields[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    func errorPage(_ error: FamilySyncError) -> Response {
        let title = switch error.code {
        case .badRequest: "That was not a valid request"
        case .authenticationRequired: "Please sign in again"
        case .accessDenied: "Not allowed"
        case .notFound: "Not found"
        case .pairingExpired: "This code has expired"
        default: "Something went wrong"
        }
        return render("error", Failure(frame: Frame(title: title, csrf: ""), code: error.code.rawValue, reason: error.reason), status: error.code.httpStatus)
    }
}
