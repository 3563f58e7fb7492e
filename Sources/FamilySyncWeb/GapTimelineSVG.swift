import Foundation

/// A device's day as a line from midnight to midnight in its time zone, with its gaps marked
/// (PROTOCOL §10): drawn by the server as SVG, with a `<title>` and `<desc>` and a `<title>` on
/// every gap; the page lists the same gaps in a table.
struct GapTimelineSVG {
    struct Gap {
        /// Minutes from the day's start, clamped to the day.
        var start: Int
        var end: Int
        /// `heartbeat_stale` or `session_gap`, the colour's class.
        var method: String
        var label: String
    }

    var id: String
    var title: String
    var strings = WebStrings(.en)
    var gaps: [Gap]

    static let width = 560, height = 56, top = 8, band = 24

    func render() -> String {
        let day = 24 * 60
        func x(_ minute: Int) -> Int { max(0, min(day, minute)) * Self.width / day }
        let description = gaps.isEmpty ? strings["gap.none"] : strings.format("gap.count", String(gaps.count), gaps.map(\.label).joined(separator: "; "))
        var svg = #"<svg xmlns="http://www.w3.org/2000/svg" class="chart timeline" viewBox="0 0 \#(Self.width) \#(Self.height)" role="img" aria-labelledby="\#(id)-title \#(id)-desc" id="\#(id)">"#
        svg += #"<title id="\#(id)-title">\#(BarChartSVG.escape(title))</title><desc id="\#(id)-desc">\#(BarChartSVG.escape(description))</desc>"#
        svg += #"<rect class="day" x="0" y="\#(Self.top)" width="\#(Self.width)" height="\#(Self.band)"/>"#
        for gap in gaps {
            let left = x(gap.start), width = max(2, x(gap.end) - left)
            svg += #"<rect class="gap \#(gap.method)" x="\#(left)" y="\#(Self.top)" width="\#(width)" height="\#(Self.band)"><title>\#(BarChartSVG.escape(gap.label))</title></rect>"#
        }
        for hour in stride(from: 0, through: 24, by: 6) {
            // The day's end is written at the right edge, ending there (midnight again: "24:00").
            let anchor = hour == 24 ? #" text-anchor="end""# : ""
            svg += #"<text x="\#(x(hour * 60))" y="\#(Self.top + Self.band + 16)"\#(anchor)>\#(String(format: "%02d", hour)):00</text>"#
        }
        return svg + "</svg>"
    }
}
