import Foundation
import Hummingbird

/// The dashboard's languages. English unless the parent chose another with the page's switch (a
/// cookie), or the browser's `Accept-Language` prefers Korean.
enum WebLanguage: String, CaseIterable, Sendable {
    case en, ko

    /// Its own name, as the switch shows it.
    var name: String {
        switch self {
        case .en: "English"
        case .ko: "한국어"
        }
    }

    /// The choice (the cookie's, when it names a language) or the first language of
    /// `Accept-Language` by its weights that the dashboard speaks (`ko-KR` is `ko`); else English.
    static func choose(cookie: String?, acceptLanguage: String?) -> WebLanguage {
        if let cookie, let chosen = WebLanguage(rawValue: cookie) { return chosen }
        var ranked: [(tag: String, weight: Double, order: Int)] = []
        for (order, part) in (acceptLanguage ?? "").split(separator: ",").enumerated() {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first?.lowercased(), !tag.isEmpty else { continue }
            let weight = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            ranked.append((tag, weight, order))
        }
        for entry in ranked.sorted(by: { $0.weight != $1.weight ? $0.weight > $1.weight : $0.order < $1.order }) where entry.weight > 0 {
            let primary = entry.tag.split(separator: "-").first.map(String.init) ?? entry.tag
            if let language = WebLanguage(rawValue: primary) { return language }
        }
        return .en
    }
}

/// The dashboard's words in one language: its catalog (`WebCatalog`), and how it writes
/// durations, times, days and numbers.
struct WebStrings: Sendable {
    let language: WebLanguage
    let catalog: [String: String]

    init(_ language: WebLanguage) {
        self.language = language
        catalog = WebCatalog.of(language)
    }

    /// The text of `key` (a missing key shows as itself: `WebCatalogTests` allows none).
    subscript(_ key: String) -> String { catalog[key] ?? key }

    /// The text of `key` with `{0}`, `{1}`… replaced by `values`.
    func format(_ key: String, _ values: String...) -> String {
        var text = self[key]
        for (index, value) in values.enumerated() { text = text.replacingOccurrences(of: "{\(index)}", with: value) }
        return text
    }

    /// "2h 10m", "45m" (English); "2시간 10분", "45분" (Korean).
    func duration(_ seconds: Int) -> String {
        let minutes = seconds / 60
        guard minutes >= 60 else { return format("unit.minutesShort", String(minutes)) }
        return format("unit.hoursMinutesShort", String(minutes / 60), String(minutes % 60))
    }

    /// "just now", "2 minutes ago", "never" in the language.
    func ago(_ date: Date?, now: Date) -> String {
        guard let date else { return self["time.never"] }
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        func count(_ value: Int, _ unit: String) -> String { format(value == 1 ? "time.\(unit)Ago" : "time.\(unit)sAgo", number(value)) }
        switch seconds {
        case ..<60: return self["time.justNow"]
        case ..<3600: return count(seconds / 60, "minute")
        case ..<86_400: return count(seconds / 3600, "hour")
        default: return count(seconds / 86_400, "day")
        }
    }

    /// "Mon 23" for `2026-11-23` (English); "23일 (월)" (Korean).
    func day(_ date: String) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = date.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, let day = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) else { return date }
        let weekday = (calendar.component(.weekday, from: day) + 5) % 7  // 0 = Monday
        return format("day.label", self["weekday.short.\(weekday)"], String(parts[2]))
    }

    /// A whole number with the language's grouping: 12,345.
    func number(_ value: Int) -> String {
        value.formatted(.number.locale(Locale(identifier: language.rawValue)))
    }

    /// The full name of ISO weekday `index` (0 = Monday).
    func weekday(_ index: Int) -> String { self["weekday.long.\(index)"] }
}

extension WebSession {
    /// The language of this request's pages.
    static func language(_ request: Request, cookies jar: [String: String]) -> WebLanguage {
        WebLanguage.choose(cookie: jar[WebCookies.language], acceptLanguage: request.headers[.acceptLanguage])
    }
}
