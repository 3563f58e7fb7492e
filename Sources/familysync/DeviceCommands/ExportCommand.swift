import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// `familysync export` (PROTOCOL §15.2): everything the server holds about the family, or one
/// member, written to a tar file as it arrives.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Download everything the server holds about the family, or one member (parent): a tar of JSON Lines (manifest.json, a folder of parts a kind, counts.json)."
    )

    @OptionGroup var options: ClientOptions
    @Option(help: "Only this member: its name or id.")
    var member: String?
    @Option(help: "The file to write. Default: familysync-family-<id>-<date>.tar (or -member-) here.")
    var output: String?

    func run() async throws {
        let context = try options.context()
        let (profile, client) = try context.device(as: .parent, for: "exporting the family's data")
        var target: MemberBody?
        if let member { target = try await MemberOption.find(member, client) }
        let date = DateRangeOptions.today(in: TimeZone(identifier: "UTC")!)
        let name = output ?? "familysync-\(target == nil ? "family" : "member")-\((target?.id ?? profile.familyId).lowercased)-\(date).tar"
        let file = URL(fileURLWithPath: name)
        let counts = if let target { try await client.exportMember(target.id, to: file) } else { try await client.exportFamily(to: file) }
        if context.output.json { return try context.output.document(ExportSummary(file: file.path, lines: counts.lines)) }
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        context.output.line("Wrote \(file.path) (\(size) bytes): \(target.map { "\($0.name)'s data" } ?? "the family's data").")
        context.output.table(["KIND", "LINES"], counts.lines.sorted { $0.key < $1.key }.map { [$0.key, String($0.value)] })
    }

    struct ExportSummary: Encodable {
        var file: String
        var lines: [String: Int]
    }
}
