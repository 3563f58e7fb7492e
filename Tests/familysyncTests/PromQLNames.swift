import Foundation

/// The metric names a PromQL expression reads: what is left once strings, label matchers, ranges,
/// grouping clauses, numbers and durations are taken out, less functions (a name before `(`)
/// and the language's words. Enough for the expressions of deploy/prometheus and
/// deploy/grafana, whose syntax `promtool` checks.
enum PromQLNames {
    static let words: Set = [
        "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset",
        "sum", "min", "max", "avg", "count", "stddev", "stdvar", "topk", "bottomk", "quantile", "count_values", "group", "inf", "nan",
    ]

    static func names(in expression: String) -> Set<String> {
        var text = expression
        for pattern in [#""(?:[^"\\]|\\.)*""#, #"'(?:[^'\\]|\\.)*'"#, #"\{[^}]*\}"#, #"\[[^\]]*\]"#,
                        #"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)"#] {
            text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        var names: Set<String> = []
        let identifier = try! NSRegularExpression(pattern: #"(?<![\w$.])([A-Za-z_:][A-Za-z0-9_:]*)(\s*\()?"#)
        let range = NSRange(text.startIndex..., in: text)
        for match in identifier.matches(in: text, range: range) where match.range(at: 2).location == NSNotFound {
            let name = String(text[Range(match.range(at: 1), in: text)!])
            if !words.contains(name.lowercased()) { names.insert(name) }
        }
        return names
    }

    /// The `expr:` of every rule in a rules file, and the `series:` of a rules test file, read
    /// from its lines: a one-line value, or the block under `expr: |`.
    static func expressions(inRulesFile text: String) -> [String] {
        let lines = text.components(separatedBy: "\n")
        var found: [String] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "- ", with: "", options: .anchored)
            index += 1
            guard let key = ["expr:", "series:"].first(where: { trimmed.hasPrefix($0) }) else { continue }
            var value = trimmed.dropFirst(key.count).trimmingCharacters(in: .whitespaces)
            if value == "|" || value == ">" {
                let indent = line.prefix { $0 == " " }.count
                var block: [String] = []
                while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces).isEmpty || lines[index].prefix(while: { $0 == " " }).count > indent {
                    block.append(lines[index])
                    index += 1
                }
                value = block.joined(separator: "\n")
            } else if value.count >= 2, let first = value.first, first == "'" || first == "\"", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            found.append(value)
        }
        return found
    }
}
