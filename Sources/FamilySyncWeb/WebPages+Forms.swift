/// The dashboard's form pages: each field as typed and its reason when refused (`WebField`).
extension WebPages {
    /// `/app/members/{id}/budgets/…` (PROTOCOL §9.3).
    struct BudgetForm: WebFormPage {
        struct Weekday {
            var key: String
            var label: String
            var field: WebField
        }

        var frame: Frame
        var memberID: String
        var memberName: String
        /// The budget's id when editing one; "" for a new budget.
        var budgetID: String
        var isNew: Bool
        var error: String?
        var categories: [WebOption]
        var category = WebField()
        var periods: [WebOption]
        var period = WebField()
        var dailyMinutes = WebField()
        var weekdays: [Weekday]
        /// Where a reason about the weekday minutes as a whole goes.
        var weekdayMinutes = WebField()
        var monthlyHours = WebField()
        /// "30 h a month is 60 min a day in November (30 days)": the seed's formula, worked.
        var monthlyFormula: String
        var alertAtPercent = WebField()
        var isExcluded = WebField()
        var enabled = WebField()

        static var fields: [String: WritableKeyPath<Self, WebField>] {
            [
            "category": \.category, "period": \.period, "dailyMinutes": \.dailyMinutes, "weekdayMinutes": \.weekdayMinutes,
            "monthlyHours": \.monthlyHours, "alertAtPercent": \.alertAtPercent, "isExcluded": \.isExcluded, "enabled": \.enabled,
            ]
        }
    }

    /// `/app/members/{id}/schedules/…` (PROTOCOL §11).
    struct ScheduleForm: WebFormPage {
        struct Day {
            var number: Int
            var label: String
            var checked: Bool
        }

        var frame: Frame
        var memberID: String
        var memberName: String
        /// The member's time zone, in which the times are read.
        var timeZone: String
        var scheduleID: String
        var isNew: Bool
        var error: String?
        var name = WebField()
        var days: [Day]
        var weekdays = WebField()
        var intervalStart = WebField()
        var intervalEnd = WebField()
        var modes: [WebOption]
        var mode = WebField()
        var applications = WebField()
        var categoryChoices: [WebOption]
        var categories = WebField()
        var warningTimeMinutes = WebField()
        var enabled = WebField()

        static var fields: [String: WritableKeyPath<Self, WebField>] {
            [
            "name": \.name, "weekdays": \.weekdays, "intervalStart": \.intervalStart, "intervalEnd": \.intervalEnd, "mode": \.mode,
            "applications": \.applications, "categories": \.categories, "warningTimeMinutes": \.warningTimeMinutes, "enabled": \.enabled,
            "scheduleID": \.name,
            ]
        }
    }

    /// `/app/members/{id}/apps/{logicalID}`: an app's category and points, and where it is blocked.
    struct AppSettings: WebFormPage {
        struct DeviceState {
            var id: String
            var name: String
            /// blocked, blocking pending, unblocking pending, or unblocked.
            var state: String
            var label: String
        }

        var frame: Frame
        var memberID: String
        var memberName: String
        var logicalID: String
        /// The logicalID as a path segment.
        var path: String
        var displayName: String
        /// Whether a device has its configuration yet (else the page shows the default category).
        var configured: Bool
        var saved: Bool
        var error: String?
        var categories: [WebOption]
        var category = WebField()
        var pointsPerMinute = WebField()
        var devices: [DeviceState]

        static var fields: [String: WritableKeyPath<Self, WebField>] {
            ["category": \.category, "pointsPerMinute": \.pointsPerMinute]
        }
    }

    /// `/app/members/{id}/settings`: its name, its PIN, its devices.
    struct MemberSettings: WebFormPage {
        struct Device {
            var id: String
            var name: String
            var platform: String
            var lastSync: String
            /// The browser showing the page: it signs out rather than revoking itself here.
            var isThis: Bool
            /// The members it may move to: the others of its role.
            var targets: [WebOption]
            var canMove: Bool
        }

        var frame: Frame
        var memberID: String
        var memberName: String
        var role: String
        /// What the last action did, said once after it.
        var done: String?
        var hasPIN: Bool
        var devices: [Device]
        var error: String?
        var name = WebField()
        /// Never holds a PIN: only the reason one was refused.
        var pin = WebField()

        static var fields: [String: WritableKeyPath<Self, WebField>] {
            ["name": \.name, "pin": \.pin]
        }
    }

    /// `/app/family`: the family's categories, and its recovery code.
    struct FamilySettings: WebFormPage {
        struct Category {
            var id: String
            var name: String
            var kind: String
            var kindLabel: String
            /// The family's own (`x-…`), not a built-in.
            var own: Bool
        }

        var frame: Frame
        var categories: [Category]
        var kinds: [WebOption]
        var saved = false
        /// A code just issued: shown on that one answer.
        var recoveryCode: String?
        var error: String?
        var id = WebField()
        var displayName = WebField()
        var defaultDailyMinutes = WebField()
        /// Where a reason about the kind goes (the choices are `kinds`).
        var kind = WebField()

        static var fields: [String: WritableKeyPath<Self, WebField>] {
            ["id": \.id, "displayName": \.displayName, "defaultDailyMinutes": \.defaultDailyMinutes, "kind": \.kind]
        }
    }
}
