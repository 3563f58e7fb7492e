import FamilySyncClient
import FamilySyncProtocol
import Foundation

/// What a child's extension does with the SDK, in a process of its own: pair (as setup), upload
/// one usage record, hold one short poll. Prints the process's resident memory before the first
/// call (the baseline: the binary loaded, Foundation started) and its peak at the end, in KiB,
/// read from /proc/self/status. Benchmarks/sdk-footprint.sh runs it over each transport.
public enum FootprintScenario {
    public static func run(transport: any HTTPTransport, name: String) async {
        guard CommandLine.arguments.count == 2, let server = URL(string: CommandLine.arguments[1]) else {
            FileHandle.standardError.write(Data("usage: \(CommandLine.arguments[0]) http://127.0.0.1:PORT\n".utf8))
            exit(2)
        }
        let baseline = memory("VmRSS")
        do {
            let anonymous = FamilySyncClient(serverURL: server, transport: transport)
            let family = try await anonymous.createFamily(.init(name: "Footprint parent", platform: .ios, timeZone: "UTC"))
            let parent = anonymous.authenticated(as: family.credential)
            let invitation = try await parent.createPairing(CreatePairingRequest(role: .child, childName: "Footprint"))
            let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "Footprint child", platform: .ios, timeZone: "UTC"))
            _ = try await parent.confirmPairing(invitation.pairing.id)
            let child = anonymous.authenticated(as: accepted.credential)

            let start = Date().addingTimeInterval(-600)
            let upload = try await child.uploadUsage(UsageUploadRequest(timeZone: "UTC", records: [UsageRecordBody(
                recordID: UUID().uuidString, logicalID: "khan", displayName: "Khan Academy", category: "learning",
                sessionStart: start, sessionEnd: start.addingTimeInterval(300), totalSeconds: 300
            )]))
            let since = try await child.databaseChanges(since: nil).changeToken
            let poll = try await child.poll(since: since, timeout: 1)
            guard upload.accepted == 1, !poll.changed else {
                FileHandle.standardError.write(Data("\(name): unexpected answers (accepted \(upload.accepted), changed \(poll.changed))\n".utf8))
                exit(1)
            }
        } catch {
            FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
            exit(1)
        }
        print("{\"transport\":\"\(name)\",\"baselineKiB\":\(baseline),\"peakKiB\":\(memory("VmHWM"))}")
    }

    /// A line of /proc/self/status, in KiB (0 where there is none).
    static func memory(_ field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") } ?? 0
    }
}
