import FamilySyncTestSupport
import Foundation
import Subprocess
import SystemPackage
import Testing

/// The suite's waits end a hang with a failure that names the wait: a bounded body
/// stuck in a named wait fails within its bound saying which, and a run whose test ignores
/// cancellation is ended by the watchdog, which prints the open waits, instead of hanging.
@Suite struct HungRunTests {
    @Test func aBoundedBodyStuckInAWaitFailsNamingIt() async throws {
        let started = ContinuousClock.now
        do {
            try await withinBound(.milliseconds(300), "a body that never ends") {
                try await OpenWaits.during("a reply that never comes", limit: .seconds(3_600)) {
                    try await Task.sleep(for: .seconds(3_600))
                }
            }
            Issue.record("the bound did not end the body")
        } catch let failure as TestFailure {
            #expect("\(failure)".contains("a body that never ends: not done within"), "\(failure)")
            #expect("\(failure)".contains("stuck in: a reply that never comes (waiting"), "\(failure)")
        }
        // Not a measure of speed: a bound of an hour's wait that held the test for minutes has failed.
        #expect(ContinuousClock.now - started < .seconds(120))
    }

    @Test func failingIfHungNamesTheWaitInside() async throws {
        await #expect {
            try await failingIfHung(after: .milliseconds(300), "a poll's answer") {
                try await OpenWaits.during("the server holding 1 polls", limit: .seconds(3_600)) { try await Task.sleep(for: .seconds(3_600)) }
            }
        } throws: { error in
            "\(error)".contains("no answer within") && "\(error)".contains("stuck in: the server holding 1 polls")
        }
    }

    /// The watchdog's verdict: only a wait past its bound and the grace is overdue, and the report
    /// names it with its test.
    @Test func aWaitPastItsBoundAndTheGraceIsOverdue() {
        let started = ContinuousClock.now - .seconds(10_000)
        let id = OpenWaits.open("a wait of this test", limit: .seconds(1), at: started)
        defer { OpenWaits.close(id) }
        #expect(!OpenWaits.overdue(now: started + .seconds(1) + OpenWaits.grace).contains { $0.hasPrefix("a wait of this test") })
        #expect(OpenWaits.overdue(now: started + .seconds(2) + OpenWaits.grace).contains { $0.hasPrefix("a wait of this test") })
        #expect(OpenWaits.report().contains("a wait of this test (waiting 10000 s of 1 s) [familysyncTests.HungRunTests/aWaitPastItsBoundAndTheGraceIsOverdue()"))
    }

    static let demo = ProcessInfo.processInfo.environment["FAMILYSYNC_TEST_HANG_DEMO"] == "1"

    /// A whole run with a test made to hang in a wait that ignores cancellation (the kind that kept
    /// a run at 0 % CPU for ten minutes): the test binary itself, run on this one test, ends
    /// with a failure and names the wait. In that child run this test is the one that hangs.
    @Test func aRunWithAHungTestEndsAndNamesTheWait() async throws {
        if Self.demo {
            try await withinBound(.seconds(1), "the hung test's body") {
                await OpenWaits.during("a continuation nobody resumes", limit: .seconds(1)) {
                    await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
                }
            }
            return
        }
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let run = try await failingIfHung(after: .seconds(120), "the hung run's end") {
            try await Subprocess.run(
                .path(FilePath(testBinary)),
                arguments: ["--testing-library", "swift-testing", "--filter", "HungRunTests/aRunWithAHungTestEndsAndNamesTheWait"],
                environment: .inherit.updating(["FAMILYSYNC_TEST_HANG_DEMO": "1", "FAMILYSYNC_TEST_HANG_GRACE_SECONDS": "2"]),
                output: .string(limit: 1 << 20), error: .string(limit: 1 << 20)
            )
        }
        let said = run.standardOutput + run.standardError
        #expect(run.terminationStatus != .exited(0), "\(said)")
        #expect(said.contains("THE TEST RUN HUNG"), "\(said)")
        #expect(said.contains("a continuation nobody resumes (waiting"), "\(said)")
        #expect(said.contains("the hung test's body"), "\(said)")
        // Where every thread was, demangled: here the watchdog's own, reading the stacks; or, on a
        // machine that forbids tracing a process, a line that says so.
        #expect(said.contains("The threads of the hung run:"), "\(said)")
        #expect(said.contains("ThreadBacktraces.describe()") || said.contains("gdb read no threads"), "\(said)")
    }
}
