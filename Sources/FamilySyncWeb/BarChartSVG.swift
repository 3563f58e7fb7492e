/// A bar chart drawn by the server as SVG, readable without script: a `<title>` and a `<desc>`
/// for assistive technology, a `<title>` on every bar segment (a tooltip, and its text
/// equivalent), each bar's total written above it. The page puts the same numbers in a table
/// beside it. Colours come from the style sheet, by series (`series-ios`, `series-learning`).
struct BarChartSVG {
    struct Segment {
        /// The series, for its colour class: `ios`, `macos`, `learning`.
        var series: String
        var label: String
        var seconds: Int
    }

    struct Bar {
        var label: String
        var segments: [Segment]
        var total: Int { segments.reduce(0) { $0 + $1.seconds } }
    }

    var id: String
    var title: String
    var description: String
    var bars: [Bar]
    /// How its durations are written: the page's language.
    var strings = WebStrings(.en)

    static let width = 560, height = 240, top = 24, bottom = 28

    func render() -> String {
        let plot = Self.height - Self.top - Self.bottom
        // The scale's top: the largest bar, rounded up to a whole hour (at least one).
        let largest = bars.map(\.total).max() ?? 0
        let ceiling = max(3600, (largest + 3599) / 3600 * 3600)
        let slot = bars.isEmpty ? Self.width : Self.width / bars.count
        let barWidth = max(8, slot * 3 / 5)
        var svg = #"<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 \#(Self.width) \#(Self.height)" role="img" aria-labelledby="\#(id)-title \#(id)-desc" id="\#(id)">"#
        svg += #"<title id="\#(id)-title">\#(Self.escape(title))</title><desc id="\#(id)-desc">\#(Self.escape(description))</desc>"#
        svg += #"<line class="axis" x1="0" y1="\#(Self.top + plot)" x2="\#(Self.width)" y2="\#(Self.top + plot)"/>"#
        for (index, bar) in bars.enumerated() {
            let x = index * slot + (slot - barWidth) / 2
            var y = Self.top + plot
            svg += #"<g class="bar" data-label="\#(Self.escape(bar.label))" data-seconds="\#(bar.total)">"#
            for segment in bar.segments where segment.seconds > 0 {
                let height = max(1, segment.seconds * plot / ceiling)
                y -= height
                svg += #"<rect class="series-\#(Self.escape(segment.series))" x="\#(x)" y="\#(y)" width="\#(barWidth)" height="\#(height)" data-seconds="\#(segment.seconds)">"#
                svg += "<title>\(Self.escape("\(bar.label): \(segment.label) \(strings.duration(segment.seconds))"))</title></rect>"
            }
            let center = x + barWidth / 2
            svg += #"<text class="value" x="\#(center)" y="\#(y - 6)" text-anchor="middle">\#(strings.duration(bar.total))</text>"#
            svg += #"<text class="label" x="\#(center)" y="\#(Self.height - 8)" text-anchor="middle">\#(Self.escape(bar.label))</text></g>"#
        }
        return svg + "</svg>"
    }

    /// "2h 10m", "45m", "0m": how screen time is written in English (`WebStrings.duration`).
    static func duration(_ seconds: Int) -> String {
        WebStrings(.en).duration(seconds)
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
