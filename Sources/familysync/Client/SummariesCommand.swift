import ArgumentParser
import FamilySyncClient
import FamilySyncProtocol
import Foundation

struct SummariesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summaries",
        abstract: "A child's daily summaries (parent): learning, reward, points and apps, a row a day."
    )

    @OptionGroup var options: ClientOptions
    @OptionGroup var child: ChildOption
    @OptionGroup var days: DateRangeOptions

    func run() async throws {
        let context = try options.context()
        let (profile, client) = try context.device(as: .parent, for: "reading summaries")
        let target = try await child.resolve(profile, client)
        let (from, to) = days.resolve(for: target)
        let summaries = try await client.summaries(of: target.id, from: from, to: to)
        if context.output.json { return try context.output.document(SummaryList(summaries: summaries)) }
        SummaryTable.print(summaries, context.output)
    }
}
