import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "A child's usage report (parent): totals by day or week and the top apps, as a table or CSV; with --member, across a person's devices, by platform."
    )

    @OptionGroup var options: ClientOptions
    @OptionGroup var child: ChildOption
    @Option(help: "A member (its name or id): the report across the member's devices, with each platform's time (§8).")
    var member: String?
    @OptionGroup var days: DateRangeOptions
    @Option(help: "day or week. Default: day.")
    var granularity: String = "day"
    @Flag(help: "Print the server's CSV (RFC 4180, a row per period and app).")
    var csv = false

    func run() async throws {
        let context = try options.context()
        let granularity = try choice(granularity, as: UsageReport.Granularity.self, for: "the granularity")
        if let member { return try await memberReport(member, granularity, context) }
        let (profile, client) = try context.device(as: .parent, for: "reading reports")
        let target = try await child.resolve(profile, client)
        let (from, to) = days.resolve(for: target)
        if csv {
            let text = try await client.reportCSV(of: target.id, from: from, to: to, granularity: granularity)
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        let report = try await client.report(of: target.id, from: from, to: to, granularity: granularity)
        if context.output.json { return try context.output.document(report) }
        let top = { (period: ReportBody.Period) in period.topApps.prefix(3).map { "\($0.displayName) \(Human.duration($0.seconds))" }.joined(separator: ", ") }
        context.output.table(
            ["PERIOD", "LEARNING", "REWARD", "TOTAL", "POINTS", "TOP APPS"],
            (report.periods + [report.totals]).enumerated().map { index, period in
                [
                    index == report.periods.count ? "total" : (period.start == period.end ? period.start : "\(period.start)..\(period.end)"),
                    Human.duration(period.totalLearningSeconds), Human.duration(period.totalRewardSeconds), Human.duration(period.totalSeconds),
                    String(period.totalPointsEarned), top(period).isEmpty ? "-" : top(period),
                ]
            }
        )
    }

    private func memberReport(_ selector: String, _ granularity: UsageReport.Granularity, _ context: ClientContext) async throws {
        let (_, client) = try context.device()
        let target = try await MemberOption.find(selector, client)
        let (from, to) = days.resolve(in: TimeZone.current)
        if csv {
            FileHandle.standardOutput.write(Data(try await client.memberReportCSV(of: target.id, from: from, to: to, granularity: granularity).utf8))
            return
        }
        let report = try await client.memberReport(of: target.id, from: from, to: to, granularity: granularity)
        if context.output.json { return try context.output.document(report) }
        context.output.table(
            ["PERIOD", "TOTAL", "BY PLATFORM", "POINTS", "TOP APPS"],
            (report.periods + [report.totals]).enumerated().map { index, period in
                [
                    index == report.periods.count ? "total" : (period.start == period.end ? period.start : "\(period.start)..\(period.end)"),
                    Human.duration(period.totalSeconds),
                    (period.byPlatform ?? []).map { "\(Human.platform($0.platform)) \(Human.duration($0.seconds))" }.joined(separator: " | "),
                    String(period.totalPointsEarned),
                    period.topApps.prefix(3).map { "\($0.displayName) \(Human.duration($0.seconds))" }.joined(separator: ", "),
                ]
            }
        )
    }
}
