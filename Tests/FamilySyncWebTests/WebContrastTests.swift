@testable import FamilySyncWeb
import Foundation
import Testing

/// Every colour the style sheet gives text is at least 4.5:1 (WCAG 2 AA) against the background
/// it sits on: the rule's own background, else the page's and a section's. Read from the sheet
/// itself, so a new colour is checked when it is added.
@Suite struct WebContrastTests {
    struct Rule {
        var selector: String
        var declarations: [String: String]
    }

    static let sheet = WebStyles.css + WebStyles.chartCSS

    /// The sheet's rules (media queries' rules included), with `var(--x)` resolved.
    static func rules() -> [Rule] {
        var variables: [String: String] = [:]
        var rules: [Rule] = []
        let text = sheet.replacing(/\/\*.*?\*\//.dotMatchesNewlines(), with: "").replacing(/@media[^{]*\{/, with: "")
        for match in text.matches(of: /([^{}]+)\{([^{}]*)\}/) {
            var declarations: [String: String] = [:]
            for part in match.2.split(separator: ";") {
                let pair = part.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                guard pair.count == 2 else { continue }
                declarations[pair[0]] = pair[1]
            }
            let selector = match.1.trimmingCharacters(in: .whitespacesAndNewlines)
            if selector == ":root" { for (name, value) in declarations where name.hasPrefix("--") { variables[name] = value } }
            rules.append(Rule(selector: selector, declarations: declarations))
        }
        return rules.map { rule in
            var resolved = rule
            resolved.declarations = rule.declarations.mapValues { value in
                value.replacing(/var\((--[a-z]+)\)/) { variables[String($0.1)] ?? String($0.0) }
            }
            return resolved
        }
    }

    /// `#rgb` or `#rrggbb` as 0–1 components; nil for anything else (inherit, a gradient).
    static func rgb(_ text: String) -> (Double, Double, Double)? {
        guard let hex = text.firstMatch(of: /#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b/)?.1 else { return nil }
        let full = hex.count == 3 ? hex.map { "\($0)\($0)" }.joined() : String(hex)
        let value = Int(full, radix: 16)!
        return (Double((value >> 16) & 255) / 255, Double((value >> 8) & 255) / 255, Double(value & 255) / 255)
    }

    static func luminance(_ color: (Double, Double, Double)) -> Double {
        func channel(_ c: Double) -> Double { c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
        return 0.2126 * channel(color.0) + 0.7152 * channel(color.1) + 0.0722 * channel(color.2)
    }

    static func contrast(_ a: (Double, Double, Double), _ b: (Double, Double, Double)) -> Double {
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    @Test func everyTextColourReadsOnItsBackground() throws {
        let rules = Self.rules()
        let root = try #require(rules.first { $0.selector == ":root" })
        let page = try #require(Self.rgb(root.declarations["--bg"] ?? ""))
        let card = try #require(Self.rgb(root.declarations["--card"] ?? ""))
        var checked = 0
        var failures: [String] = []
        for rule in rules {
            // Text: `color`, and `fill` where the rule is an SVG's text.
            var inks: [String] = []
            if let color = rule.declarations["color"] { inks.append(color) }
            if rule.selector.contains("text"), let fill = rule.declarations["fill"] { inks.append(fill) }
            for ink in inks {
                guard let foreground = Self.rgb(ink) else { continue }
                let own = (rule.declarations["background"] ?? rule.declarations["background-color"]).flatMap(Self.rgb)
                for (name, background) in own.map({ [("its own background", $0)] }) ?? [("the page", page), ("a section", card)] {
                    checked += 1
                    let ratio = Self.contrast(foreground, background)
                    if ratio < 4.5 { failures.append("\(rule.selector): \(ink) on \(name) is \(String(format: "%.2f", ratio)):1") }
                }
            }
        }
        #expect(checked >= 12, "the sheet's text colours were found (\(checked))")
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func theRatioIsWCAGs() {
        #expect(abs(Self.contrast((0, 0, 0), (1, 1, 1)) - 21) < 0.001)
        #expect(abs(Self.contrast((1, 1, 1), (1, 1, 1)) - 1) < 0.001)
        // #767676 on white is the well-known 4.54:1.
        #expect(abs(Self.contrast(Self.rgb("#767676")!, (1, 1, 1)) - 4.54) < 0.01)
    }
}
