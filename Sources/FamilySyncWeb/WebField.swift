import FamilySyncCore
import Hummingbird

/// One field of a dashboard form as the page shows it: what was typed, and the server's reason
/// for refusing it, shown next to it. A refused form comes back with everything as typed.
struct WebField {
    var value: String
    var error: String?
    /// A checkbox's state (a browser sends `on` for a ticked box and nothing for another).
    var checked: Bool

    init(_ value: String = "") {
        self.value = value
        checked = value == "on"
    }
}

/// A `<select>`'s choice.
struct WebOption {
    var value: String
    var label: String
    var selected: Bool
}

/// A form page: its fields by name, and where a reason goes that names no field of it.
protocol WebFormPage {
    /// The form's fields by the names the API's errors use (§1.1's `field`, its last part).
    static var fields: [String: WritableKeyPath<Self, WebField>] { get }
    var error: String? { get set }
    var frame: WebPages.Frame { get set }
}

extension WebFormPage {
    /// Puts a refusal next to the field it names (`operations[0].record.fields.dailyMinutes` is
    /// the form's `dailyMinutes`), or above the form when it names none of them.
    mutating func show(_ failure: FamilySyncError) {
        if let name = Self.formField(failure.field), let path = Self.fields[name] {
            self[keyPath: path].error = failure.reason
        } else {
            error = failure.reason
        }
    }

    /// The form field an API field path names: a record's member, after its last `fields.`, up
    /// to the next `.` or `[` (`…fields.weekdayMinutes.mon` is `weekdayMinutes`); else the path's
    /// last part (`configuration[0].pointsPerMinute` is `pointsPerMinute`).
    static func formField(_ path: String?) -> String? {
        guard let path else { return nil }
        if let range = path.range(of: "fields.", options: .backwards) {
            return path[range.upperBound...].split(whereSeparator: { $0 == "." || $0 == "[" }).first.map(String.init)
        }
        return path.split(separator: ".").last.map { String($0.prefix { $0 != "[" }) }
    }
}

extension WebController {
    /// What a form's action does: the write, or the form again at the refusal's status with the
    /// reason beside its field. Refusals a parent can mend by typing (400, 409) come back as the
    /// form; the rest (403, 404, 503) are the error page. The form shown again answers a POST: it is
    /// not live (a refresh would ask the POST's address), and its language switch comes back to
    /// `page`, the address that shows the form.
    static func submit<Page: WebFormPage>(
        _ page: Page, at getPath: String, render: (Page, FamilySyncError) -> Response, _ write: () async throws -> Response
    ) async throws -> Response {
        do {
            return try await write()
        } catch let failure as FamilySyncError where [FamilySyncError.Code.badRequest, .conflict, .exists, .limitExceeded].contains(failure.code) {
            var page = page
            page.show(failure)
            page.frame.liveToken = nil
            page.frame.path = getPath
            return render(page, failure)
        }
    }
}
