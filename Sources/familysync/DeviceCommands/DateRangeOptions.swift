import ArgumentParser
import FamilySyncProtocol
import Foundation

/// `--from` and `--to`, calendar days of the child's time zone.
struct DateRangeOptions: ParsableArguments {
    @Option(help: "First day, YYYY-MM-DD. Default: six days before --to.")
    var from: String?
    @Option(help: "Last day, YYYY-MM-DD. Default: today in the child's time zone.")
    var to: String?

    /// The days asked for; the defaults are the last seven days of `child`.
    func resolve(for child: DeviceBody, now: Date = Date()) -> (from: String, to: String) {
        resolve(in: TimeZone(identifier: child.timeZone) ?? TimeZone(identifier: "UTC")!, now: now)
    }

    /// Today's date in `timeZone`, `YYYY-MM-DD`.
    static func today(in timeZone: TimeZone, now: Date = Date()) -> String {
        dayFormatter(timeZone).string(from: now)
    }

    static func dayFormatter(_ timeZone: TimeZone) -> DateFormatter {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let formatter = DateFormatter()
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter
    }

    /// The days asked for; the defaults are the last seven days in `timeZone`.
    func resolve(in timeZone: TimeZone, now: Date = Date()) -> (from: String, to: String) {
        let formatter = Self.dayFormatter(timeZone)
        let calendar = formatter.calendar!
        let end = to ?? formatter.string(from: now)
        // An end the server will refuse is passed on as given: its 400 names the parameter.
        let start = from ?? formatter.date(from: end).flatMap { calendar.date(byAdding: .day, value: -6, to: $0) }.map(formatter.string(from:)) ?? end
        return (start, end)
    }
}

/// Daily summaries as a table: one row a day.
enum SummaryTable {
    static func print(_ summaries: [DailySummaryBody], _ output: Output) {
        output.table(
            ["DATE", "LEARNING", "REWARD", "TOTAL", "POINTS", "APPS"],
            summaries.map { day in
                [
                    day.date, Human.duration(day.totalLearningSeconds), Human.duration(day.totalRewardSeconds), Human.duration(day.totalSeconds),
                    String(day.totalPointsEarned), day.byApp.isEmpty ? "-" : day.byApp.map { "\($0.displayName) \(Human.duration($0.seconds))" }.joined(separator: ", "),
                ]
            }
        )
    }
}
