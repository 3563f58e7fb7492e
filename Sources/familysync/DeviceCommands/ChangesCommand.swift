import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

struct ChangesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "A page of changes of several zones in one request (PROTOCOL §5.5's multi-zone fetch).",
        discussion: """
            Prints each zone's records (as `watch` does), then each zone's new change token and whether more is to \
            come; pass a token back with --since to get what came after it. Without --zone or --since: every zone the \
            device sees (50 a request). A zone the device may not see, or whose token is wrong or expired, is \
            reported on its own line and the command exits 1; the other zones are printed all the same. The tokens \
            are not saved: `watch` keeps its own.
            """
    )

    @OptionGroup var options: ClientOptions
    @Option(name: .customLong("zone"), help: "A zone to fetch from the start (repeat for several).")
    var zones: [String] = []
    @Option(help: "ZONE=TOKEN: fetch ZONE after TOKEN, a token a previous page gave (repeat for several).")
    var since: [String] = []
    @Option(help: "Records a zone's page, 1-1000. Default: 200.")
    var limit: Int?

    func validate() throws {
        if let limit, !Limits.pageSizes.contains(limit) { throw ValidationError("--limit is 1 to 1000") }
        _ = try tokens()
    }

    /// `--since` as zone → token, each zone once.
    func tokens() throws -> [(zone: String, token: String)] {
        var seen = Set<String>()
        return try since.map { pair in
            guard let split = pair.firstIndex(of: "="), split != pair.startIndex else {
                throw ValidationError("--since is ZONE=TOKEN, not '\(pair)'")
            }
            let zone = String(pair[..<split])
            guard seen.insert(zone).inserted else { throw ValidationError("--since names zone '\(zone)' twice") }
            return (zone, String(pair[pair.index(after: split)...]))
        }
    }

    func run() async throws {
        let context = try options.context()
        let (_, client) = try context.device()
        let given = try tokens()
        var asked = zones.map { MultiZoneChangesRequest.Zone(zoneName: $0) }
        for (zone, token) in given {
            if let index = asked.firstIndex(where: { $0.zoneName == zone }) {
                asked[index].since = token
            } else {
                asked.append(.init(zoneName: zone, since: token))
            }
        }
        if asked.isEmpty { asked = try await client.zones().map { .init(zoneName: $0.zoneName) } }
        var answers: [ZoneChangesResult] = []
        var rest = asked[...]
        while !rest.isEmpty {
            answers += try await client.changes(inZones: Array(rest.prefix(Limits.maximumZonesPerFetch)), limit: limit)
            rest = rest.dropFirst(Limits.maximumZonesPerFetch)
        }
        try print(answers, context.output)
        let failed = answers.compactMap { answer in answer.error.map { "\(answer.zoneName): \(ErrorResponse(error: $0).familySyncError)" } }
        guard failed.isEmpty else {
            throw OperatorError.runtime("\(failed.count) zone\(failed.count == 1 ? "" : "s") answered an error: " + failed.joined(separator: "; "))
        }
    }

    private func print(_ answers: [ZoneChangesResult], _ output: Output) throws {
        if output.json { return try output.document(MultiZoneChangesResponse(zones: answers)) }
        for answer in answers {
            for record in answer.page?.records ?? [] {
                output.line("\(answer.zoneName)  \(record.recordType)  \(record.recordName)  \(WatchCommand.describe(record))")
            }
        }
        if answers.contains(where: { !($0.page?.records.isEmpty ?? true) }) { output.line() }
        output.table(["ZONE", "RECORDS", "MORE", "CHANGE TOKEN"], answers.map { answer in
            guard let page = answer.page else {
                let error = ErrorResponse(error: answer.error ?? .init(code: "INTERNAL_ERROR", reason: "no page")).familySyncError
                return [answer.zoneName, "-", "-", "error \(error)"]
            }
            return [answer.zoneName, String(page.records.count), page.moreComing ? "yes" : "no", page.changeToken]
        })
    }
}
