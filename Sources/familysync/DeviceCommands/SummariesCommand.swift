import ArgumentParser
import FamilySyncClient
import FamilySyncProtocol
import Foundation

struct SummariesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summaries",
        abstract: "A child's daily summaries (parent): learning, reward, points and apps, a row a day; with --member, a person's day across their devices, by platform."
    )

    @OptionGroup var options: ClientOptions
    @OptionGroup var child: ChildOption
    @Option(help: "A member (its name or id): one view across the member's devices, with each platform's time (§8).")
    var member: String?
    @OptionGroup var days: DateRangeOptions

    func run() async throws {
        let context = try options.context()
        if let member {
            let (_, client) = try context.device()
            let target = try await MemberOption.find(member, client)
            // The member's days are dated in each device's own zone; the default range ends today here.
            let (from, to) = days.resolve(in: TimeZone.current)
            let summaries = try await client.memberSummaries(of: target.id, from: from, to: to)
            if context.output.json { return try context.output.document(MemberSummaryList(summaries: summaries)) }
            MemberSummaryTable.print(summaries, context.output)
            return
        }
        let (profile, client) = try context.device(as: .parent, for: "reading summaries")
        let target = try await child.resolve(profile, client)
        let (from, to) = days.resolve(for: target)
        let summaries = try await client.summaries(of: target.id, from: from, to: to)
        if context.output.json { return try context.output.document(SummaryList(summaries: summaries)) }
        SummaryTable.print(summaries, context.output)
    }
}

/// A member's days as a table: the total, each platform's share ("iOS 2h 10m | Mac 1h 32m"), the top apps.
enum MemberSummaryTable {
    static func print(_ days: [MemberDayBody], _ output: Output) {
        output.table(
            ["DATE", "TOTAL", "BY PLATFORM", "LEARNING", "REWARD", "POINTS", "APPS"],
            days.map { day in
                [
                    day.date, Human.duration(day.totalSeconds),
                    day.byPlatform.map { entry in
                        let share = day.totalSeconds == 0 ? 0 : Int((Double(entry.seconds) / Double(day.totalSeconds) * 100).rounded())
                        return "\(Human.platform(entry.platform)) \(Human.duration(entry.seconds)) (\(share)%)"
                    }.joined(separator: " | "),
                    Human.duration(day.totalLearningSeconds), Human.duration(day.totalRewardSeconds), String(day.totalPointsEarned),
                    day.byApp.isEmpty ? "-" : day.byApp.prefix(3).map { "\($0.displayName) \(Human.duration($0.seconds))" }.joined(separator: ", "),
                ]
            }
        )
    }
}
