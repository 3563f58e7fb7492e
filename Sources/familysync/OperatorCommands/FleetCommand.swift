import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import Foundation

/// `familysync fleet …`: the operator's view across every family (PROTOCOL §10.1), with the
/// operator token `serve` was given, not a device's profile.
struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "The operator's view across families: the weekly tracking report, and a new operator token.",
        subcommands: [Report.self, Token.self]
    )

    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The weekly tracking report (PROTOCOL §10.1): stale rate, failure rate, heartbeat gaps, missed notifications and sequence resets, by platform and app version, against the tracking seed's targets."
        )

        @Option(help: "The server's base URL. Env: FAMILYSYNC_SERVER. Default: http://127.0.0.1:8080.")
        var server: String?

        @Option(help: "A file holding the operator token serve was given. Env: FAMILYSYNC_OPERATOR_TOKEN (the token itself).", completion: .file())
        var tokenFile: String?

        @Option(help: "The ISO week, YYYY-Www (2026-W48). Default: the last whole week.")
        var week: String?

        @Flag(help: "Print the report as JSON for scripts instead of text.")
        var json = false

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let token = try SecretSetting.text(
                file: tokenFile, variable: "FAMILYSYNC_OPERATOR_TOKEN", environment: environment, named: "operator token", emptyIsUnset: true
            )
            guard let token, !token.isEmpty else {
                throw OperatorError.configuration("the fleet's report needs the operator token (--token-file or FAMILYSYNC_OPERATOR_TOKEN)")
            }
            if let week, ISOWeek(week) == nil {
                throw OperatorError.configuration("the week is an ISO week, YYYY-Www (2026-W48), one the year has, from 0001-W01 to 9999-W51; not '\(week)'")
            }
            let serverText = server ?? environment["FAMILYSYNC_SERVER"].flatMap { $0.isEmpty ? nil : $0 } ?? ClientOptions.defaultServer
            let client = FamilySyncClient(serverURL: try ClientOptions.serverURL(serverText), credential: token, transport: ClientContext.transport)
            do {
                if json {
                    return try Output(json: true).document(try await client.trackingReport(week: week))
                }
                FileHandle.standardOutput.write(Data(try await client.trackingReportText(week: week).utf8))
            } catch let error as FamilySyncError where error.code == .authenticationRequired {
                // Not a device's credential gone: the hint for those would mislead.
                throw OperatorError.configuration("the server refused the operator token: it is not the one serve was given")
            }
        }
    }

    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a new operator token (256 random bits) for serve's --operator-token-file or FAMILYSYNC_OPERATOR_TOKEN."
        )

        func run() {
            print(OperatorToken.generate())
        }
    }
}
