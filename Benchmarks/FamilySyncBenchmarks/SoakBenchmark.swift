import AsyncHTTPClient
import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// `familysync-bench soak [devices] [minutes]`: families of one parent and three children doing
/// what the apps do, against `familysync serve` (the release binary beside this one, on its
/// embedded database, fsync on), then the invariants checked; see Benchmarks/README.md.
enum SoakBenchmark {
    static let timeZones = ["UTC", "America/Chicago", "Europe/Berlin", "Asia/Kolkata"]

    static func run(_ arguments: [String]) async throws {
        let devices = max(4, arguments.count > 0 ? Int(arguments[0]) ?? 200 : 200)
        let minutes = arguments.count > 1 ? Double(arguments[1]) ?? 30 : 30
        PollBenchmark.raiseOpenFileLimit()
        let directory = "/tmp/familysync-soak-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory + "/devices", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try freeLoopbackPort()
        let server = try ServeProcess.launch(directory: directory, port: port, extraArguments: ["--unauthenticated-rate-limit", "1000000"])
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(10)))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = devices * 3 + 100
        configuration.connectionPool.retryConnectionEstablishment = false
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let recorder = RequestRecorder()
        let anonymous = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(port)")!, httpClient: http, observer: recorder.record)
        _ = try await server.waitUntilReady(anonymous)

        // Pairing, a few families at a time, as parents do it.
        let familyCount = devices / 4
        print("soak: \(familyCount) families (\(familyCount) parents, \(familyCount * 3) children) for \(minutes) minutes")
        var parents: [SoakParent] = []
        for first in stride(from: 0, to: familyCount, by: 10) {
            try await withThrowingTaskGroup(of: SoakParent.self) { group in
                for index in first..<min(familyCount, first + 10) {
                    group.addTask { try await pairFamily(index, anonymous: anonymous, directory: directory + "/devices") }
                }
                for try await parent in group { parents.append(parent) }
            }
        }
        let children = parents.flatMap(\.children)

        // The run, the server's memory sampled as it goes.
        let started = ContinuousClock.now
        let end = started + .seconds(minutes * 60)
        let sampling = Task {
            var samples: [(minute: Double, sample: ProcessSample)] = []
            while !Task.isCancelled {
                if let sample = try? ProcessSample(pid: server.process.processIdentifier) {
                    samples.append((seconds(ContinuousClock.now - started) / 60, sample))
                }
                try? await Task.sleep(for: .seconds(max(10, minutes * 6)))
            }
            return samples
        }
        await withTaskGroup(of: Void.self) { group in
            for parent in parents { group.addTask { await parent.run(until: end) } }
            for child in children { group.addTask { await child.run(until: end) } }
        }
        let ran = seconds(ContinuousClock.now - started)
        let report = recorder.snapshot

        // Everything still queued is delivered, then every engine must hold what the server holds.
        var undelivered = 0
        for child in children {
            var delivered = false
            for _ in 0..<5 where !delivered { delivered = await child.flush() }
            if !delivered { undelivered += 1 }
        }
        let converged = await convergence(of: parents.map(\.engine) + children.map(\.engine))
        sampling.cancel()
        let samples = await sampling.value

        // Invariants on what is stored. The wire carries instants to the millisecond (PROTOCOL §1), so
        // what the server was sent is the ledger rounded there; the summaries are recomputed from
        // the records the server holds, once they are shown to be exactly what was sent.
        var storedTwice = 0, missing = 0, unexpected = 0, contentDiffering = 0, summariesDiffering = 0, summariesChecked = 0
        var daysChangedBySubMilliseconds = 0
        for parent in parents {
            for child in parent.children {
                let queued = child.ledger.withLock { $0.queued }
                let sent = Dictionary(uniqueKeysWithValues: queued.values.map { (asSent($0).recordID, asSent($0)) })
                var stored: [UsageRecordBody] = []
                var cursor: String?
                repeat {
                    let page = try await parent.client.usage(of: child.id, from: Date().addingTimeInterval(-3 * 86_400), to: Date().addingTimeInterval(86_400), limit: 1000, cursor: cursor)
                    stored += page.records
                    cursor = page.cursor
                } while cursor != nil
                let storedIDs = stored.map { $0.recordID.lowercased() }
                storedTwice += storedIDs.count - Set(storedIDs).count
                let sentIDs = Set(sent.keys)
                missing += sentIDs.subtracting(storedIDs).count
                unexpected += Set(storedIDs).subtracting(sentIDs).count
                for record in stored {
                    var record = record
                    record.deviceID = nil
                    if let original = sent[record.recordID], original != record { contentDiffering += 1 }
                }

                let zone = TimeZone(identifier: child.timeZone)!
                let sessions = stored.map(session)
                let days = Set(sessions.flatMap { DailySummaryCalculator.days(of: $0, in: zone) }).sorted()
                guard let first = days.first, let last = days.last else { continue }
                let expected = DailySummaryCalculator.summaries(of: sessions, days: days, deviceID: child.id, timeZone: zone, at: Date())
                let unrounded = DailySummaryCalculator.summaries(of: queued.values.map(session), days: days, deviceID: child.id, timeZone: zone, at: Date())
                daysChangedBySubMilliseconds += zip(expected, unrounded).filter { $0.byApp != $1.byApp }.count
                let actual = try await parent.client.summaries(of: child.id, from: first, to: last)
                for (want, have) in zip(expected, actual) {
                    summariesChecked += 1
                    let same = want.date == have.date && want.totalLearningSeconds == have.totalLearningSeconds
                        && want.totalRewardSeconds == have.totalRewardSeconds && want.totalPointsEarned == have.totalPointsEarned
                        && want.byApp.map { "\($0.logicalID) \($0.seconds) \($0.points)" } == have.byApp.map { "\($0.logicalID) \($0.seconds) \($0.points)" }
                    if !same {
                        summariesDiffering += 1
                        print("summary differs: child \(child.id) (\(child.timeZone)) \(want.date): expected learning \(want.totalLearningSeconds) reward \(want.totalRewardSeconds) points \(want.totalPointsEarned) "
                            + "\(want.byApp.map { "\($0.logicalID) \($0.seconds)s \($0.points)p" }), stored \(have.date) learning \(have.totalLearningSeconds) reward \(have.totalRewardSeconds) "
                            + "points \(have.totalPointsEarned) \(have.byApp.map { "\($0.logicalID) \($0.seconds)s \($0.points)p" })")
                    }
                }
                if expected.count != actual.count { summariesDiffering += 1 }
            }
        }
        let serverRSS = (try? ProcessSample(pid: server.process.processIdentifier))?.residentBytes ?? 0
        server.signal(SIGTERM)
        try await server.waitUntilExit()
        try await http.shutdown()

        // The report.
        let ledgers = children.map { $0.ledger.withLock { $0 } }
        let seen = (parents.map(\.engine) + children.map(\.engine)).map(\.seen)
        let total = report.values.reduce(0) { $0 + $1.milliseconds.count }
        print(String(format: "ran %.1f min; %d requests (%.1f/s)", ran / 60, total, Double(total) / ran))
        print("\nendpoint                                       requests   p50 ms   p99 ms   statuses")
        for (key, endpoint) in report.sorted(by: { $0.key < $1.key }) {
            let sorted = endpoint.milliseconds.sorted()
            let statuses = endpoint.statuses.sorted { $0.key < $1.key }.map { "\($0.key) × \($0.value)" }.joined(separator: ", ")
            print(key.padding(toLength: 46, withPad: " ", startingAt: 0) + String(format: " %8d %8.2f %8.2f   ", sorted.count, percentile(sorted, 0.5), percentile(sorted, 0.99)) + statuses)
        }
        var byStatus: [String: Int] = [:]
        for endpoint in report.values { byStatus.merge(endpoint.statuses, uniquingKeysWith: +) }
        print("\nanswers by status: " + byStatus.sorted { $0.key < $1.key }.map { "\($0.key) × \($0.value)" }.joined(separator: ", "))
        print("\nserver RSS over the run:")
        for (minute, sample) in samples {
            print(String(format: "  %5.1f min  %7.1f MiB  cpu %.1f s", minute, Double(sample.residentBytes) / 1_048_576, sample.cpuSeconds))
        }
        print(String(format: "  end        %7.1f MiB", Double(serverRSS) / 1_048_576))

        let records = ledgers.reduce(0) { $0 + $1.queued.count }
        let waits = seen.reduce(into: [String: Int]()) { $0.merge($1.waits, uniquingKeysWith: +) }
        let flushFailures = ledgers.reduce(into: [String: Int]()) { $0.merge($1.flushFailures, uniquingKeysWith: +) }
        let otherFailures = ledgers.reduce(into: [String: Int]()) { $0.merge($1.failures, uniquingKeysWith: +) }
            .merging(parents.reduce(into: [String: Int]()) { $0.merge($1.failures.withLock { $0 }, uniquingKeysWith: +) }, uniquingKeysWith: +)
        print("\nactivity: \(records) usage records queued, \(ledgers.reduce(0) { $0 + $1.acknowledged.count }) flushes acknowledged, "
            + "\(ledgers.reduce(0) { $0 + $1.offlineGaps }) offline gaps, \(parents.reduce(0) { $0 + $1.writes.load(ordering: .relaxed) }) configuration writes, "
            + "\(parents.reduce(0) { $0 + $1.commands.load(ordering: .relaxed) }) commands sent, \(ledgers.reduce(0) { $0 + $1.commandsExecuted }) carried out, "
            + "\(seen.reduce(0) { $0 + $1.events }) engine events")
        print("failures: flushes \(flushFailures), other calls \(otherFailures), engine waits \(waits)")

        print("\ninvariants:")
        let repeated = seen.reduce(0) { $0 + $1.repeated.count }
        let resent = ledgers.reduce(0) { $0 + $1.resentNotDuplicate.count }
        let rejected = ledgers.reduce(0) { $0 + $1.rejected }
        let checks: [(String, Bool)] = [
            ("every queued record delivered at the end (\(undelivered) queues left undelivered)", undelivered == 0),
            ("every acknowledged record stored exactly once (\(missing) missing, \(storedTwice) twice, \(unexpected) unknown)", missing == 0 && storedTwice == 0 && unexpected == 0),
            ("every stored record is what was sent, to the wire's millisecond (\(contentDiffering) differ)", contentDiffering == 0),
            ("no record refused (\(rejected))", rejected == 0),
            ("a re-sent acknowledged batch is all duplicates (\(resent) were not)", resent == 0),
            ("every summary equals its recomputation (\(summariesChecked) days, \(summariesDiffering) differ)", summariesDiffering == 0),
            ("no change handed to an engine twice (\(repeated))", repeated == 0),
            ("every engine holds the server's latest version of every record (\(converged.diverged) of \(converged.engines) do not)", converged.diverged == 0),
            ("no engine stopped (\(seen.filter(\.stopped).count))", !seen.contains(where: \.stopped)),
            ("no answer 5xx (\(byStatus.filter { $0.key.hasPrefix("5") }.values.reduce(0, +)))", !byStatus.keys.contains { $0.hasPrefix("5") }),
        ]
        for (what, holds) in checks { print("  [\(holds ? "ok" : "FAILED")] \(what)") }
        print("  (days whose summary the sub-millisecond part of the devices' own clocks would have changed, had the wire carried it: \(daysChangedBySubMilliseconds))")
        // Into a file stdout is buffered, and a harness that fails must not lose its report.
        fflush(nil)
        if checks.contains(where: { !$0.1 }) { throw BenchFailure("an invariant does not hold") }
    }

    /// A record as the wire carries it: instants to the millisecond.
    static func asSent(_ record: UsageRecordBody) -> UsageRecordBody {
        var record = record
        record.recordID = record.recordID.lowercased()
        record.sessionStart = Instant.parse(Instant.format(record.sessionStart))!
        record.sessionEnd = Instant.parse(Instant.format(record.sessionEnd))!
        return record
    }

    static func session(_ body: UsageRecordBody) -> UsageSession {
        UsageSession(
            recordID: UUID(uuidString: body.recordID)!, logicalID: body.logicalID, displayName: body.displayName,
            category: UsageSession.Category(rawValue: body.category ?? "other")!, sessionStart: body.sessionStart, sessionEnd: body.sessionEnd,
            totalSeconds: body.totalSeconds, earnedPoints: body.earnedPoints ?? 0
        )
    }

    /// A family: its parent, three children paired by QR and confirmed, each with a running engine.
    static func pairFamily(_ index: Int, anonymous: FamilySyncClient, directory: String) async throws -> SoakParent {
        let timeZone = timeZones[index % timeZones.count]
        let family = try await anonymous.createFamily(.init(name: "Soak parent \(index)", platform: .ios, timeZone: timeZone))
        let parent = anonymous.authenticated(as: family.credential)
        var children: [SoakChild] = []
        for number in 0..<3 {
            let invitation = try await parent.createPairing(.init(role: .child, childName: "Child \(number)"))
            let accepted = try await anonymous.acceptPairing(
                qrPayload: invitation.qrPayload, device: .init(name: "Soak child \(index).\(number)", platform: .ipados, timeZone: timeZone)
            )
            _ = try await parent.confirmPairing(invitation.pairing.id)
            children.append(SoakChild(id: accepted.device.id, timeZone: timeZone, client: anonymous.authenticated(as: accepted.credential), directory: directory))
        }
        return SoakParent(client: parent, children: children, directory: directory, reference: "parent-\(index)")
    }

    /// Waits (up to two minutes) until every engine holds the server's latest version of every
    /// record its device sees; then stops them. How many engines did not get there.
    static func convergence(of engines: [FollowingEngine]) async -> (engines: Int, diverged: Int) {
        var diverged = 0
        for engine in engines {
            let deadline = ContinuousClock.now + .seconds(120)
            var same = false
            while !same, ContinuousClock.now < deadline {
                if let state = try? await engine.serverState() {
                    same = engine.seen.latest == state
                }
                if !same { try? await Task.sleep(for: .seconds(1)) }
            }
            if !same { diverged += 1 }
        }
        for engine in engines { await engine.stop() }
        return (engines.count, diverged)
    }
}
