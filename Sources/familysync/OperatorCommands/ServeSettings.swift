import ArgumentParser
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncServer
import Foundation

/// The type of a `serve` setting, read the same way from its flag and from its environment
/// variable: the value, or the one line that says why the text is not one.
protocol SettingValue: Sendable {
    init(setting text: String) throws(OperatorError)
}

/// A flag's value, parsed by its type as ArgumentParser reads the arguments. A text that is not
/// a value is kept with its reason rather than refused there: ArgumentParser would refuse it with
/// its own wording and the usage, over several lines, where `serve` refuses every bad setting, from
/// a flag or from the environment, as one line, `familysync: error: <reason>`, with exit 2
/// (`ServeCommandTests`). For the same reason the reasons wait for the settings to be read
/// (`SettingSource`) rather than `validate()`: ArgumentParser ends a command whose `validate()`
/// throws with its own prefix and exit 1.
struct SettingFlag<Value: SettingValue>: ExpressibleByArgument, Sendable {
    /// As given, for a reason that quotes it.
    let text: String
    let parsed: Result<Value, OperatorError>

    init(argument: String) {
        text = argument
        parsed = Result { () throws(OperatorError) in try Value(setting: argument) }
    }
}

/// Where `serve` reads a setting: its flag, else its environment variable (an empty value is
/// a value, as it always was, except where `emptyIsUnset`); nil when neither gives it, for the
/// caller's default.
struct SettingSource {
    let environment: [String: String]

    /// Whether the flag or the variable gives the setting, before its value is read.
    func isSet<Value>(_ flag: SettingFlag<Value>?, _ variable: String, emptyIsUnset: Bool = false) -> Bool {
        given(flag, variable, emptyIsUnset: emptyIsUnset) != nil
    }

    func value<Value>(_ flag: SettingFlag<Value>?, _ variable: String, emptyIsUnset: Bool = false) throws(OperatorError) -> Value? {
        try given(flag, variable, emptyIsUnset: emptyIsUnset)?.parsed.get()
    }

    /// A whole number from `range`; otherwise "`name` must be a whole number from 1 to 10, not '…'".
    func wholeNumber(_ flag: SettingFlag<Int>?, _ variable: String, named name: String, in range: ClosedRange<Int>) throws(OperatorError) -> Int? {
        guard let (text, parsed) = given(flag, variable) else { return nil }
        guard case .success(let number) = parsed, range.contains(number) else {
            throw .configuration("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// `on` or `off`; otherwise "`name` must be on or off, not '…'".
    func onOff(_ flag: SettingFlag<OnOff>?, _ variable: String, named name: String) throws(OperatorError) -> OnOff? {
        guard let (text, parsed) = given(flag, variable) else { return nil }
        guard case .success(let value) = parsed else { throw .configuration("\(name) must be on or off, not '\(text.lowercased())'") }
        return value
    }

    /// An http:// or https:// URL with a host (and no query unless `allowsQuery`), as written;
    /// otherwise "`requirement`, not '…'".
    func webURL(_ flag: SettingFlag<URL>?, _ variable: String, requirement: String, allowsQuery: Bool = true) throws(OperatorError) -> String? {
        guard let (text, parsed) = given(flag, variable) else { return nil }
        guard case .success(let url) = parsed, ["http", "https"].contains(url.scheme ?? ""), url.host != nil, allowsQuery || url.query == nil else {
            throw .configuration("\(requirement), not '\(text)'")
        }
        return text
    }

    private func given<Value>(_ flag: SettingFlag<Value>?, _ variable: String, emptyIsUnset: Bool = false) -> (text: String, parsed: Result<Value, OperatorError>)? {
        if let flag { return (flag.text, flag.parsed) }
        guard let text = environment[variable], !(emptyIsUnset && text.isEmpty) else { return nil }
        return (text, Result { () throws(OperatorError) in try Value(setting: text) })
    }
}

extension Int: SettingValue {
    /// The reason is the setting's own (`SettingSource.wholeNumber`).
    init(setting text: String) throws(OperatorError) {
        guard let number = Int(text) else { throw .configuration("'\(text)' is not a whole number") }
        self = number
    }
}

extension URL: SettingValue {
    /// The reason is the setting's own (`SettingSource.webURL`).
    init(setting text: String) throws(OperatorError) {
        guard let url = URL(string: text) else { throw .configuration("'\(text)' is not a URL") }
        self = url
    }
}

/// A comma-separated list, blanks dropped: `--apple-client-ids`.
struct CommaSeparated: SettingValue {
    let items: [String]

    init(setting text: String) {
        items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

extension PushRegistration.Environment: SettingValue {
    init(setting text: String) throws(OperatorError) {
        guard let value = Self(rawValue: text) else { throw .configuration("the APNs environment is production or sandbox, not '\(text)'") }
        self = value
    }
}

/// A switch, in any case: `--prepared-statements`, `--trace-ids`.
enum OnOff: String, SettingValue {
    case on, off

    /// The reason is the setting's own (`SettingSource.onOff`).
    init(setting text: String) throws(OperatorError) {
        guard let value = Self(rawValue: text.lowercased()) else { throw .configuration("'\(text)' is not on or off") }
        self = value
    }
}

extension Double: SettingValue {
    /// The reason is the setting's own (the trace sample ratio's).
    init(setting text: String) throws(OperatorError) {
        guard let number = Double(text), number.isFinite else { throw .configuration("the trace sample ratio must be a number from 0 to 1, not '\(text)'") }
        self = number
    }
}

extension TrustedProxies: SettingValue {
    init(setting text: String) throws(OperatorError) {
        do {
            try self.init(parsing: text)
        } catch {
            throw .configuration(error.description)
        }
    }
}

/// `--listen-database-url`: the change listener's own connection.
struct ListenDatabaseURL: SettingValue {
    let url: DatabaseURL

    init(setting text: String) throws(OperatorError) {
        do {
            url = try DatabaseURL(text)
        } catch {
            throw .configuration("malformed listen database URL: \(error.reason)")
        }
    }
}
