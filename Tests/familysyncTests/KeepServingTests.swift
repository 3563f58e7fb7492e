import FamilySyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ReliabilitySuites {
    /// `scripts/lib/keep-serving.sh`, which the README's `scripts/serve` runs the server under: a
    /// server that dies of a signal is started again on the same data; a stop, or an exit with a
    /// status, ends it for good.
    @Suite(.timeLimit(.minutes(2))) struct KeepServingTests {
        static let script = TestPaths.packageRoot.appendingPathComponent("scripts/lib/keep-serving.sh").path

        @Test func aServerKilledBySignalIsStartedAgainAndAStopEndsBoth() async throws {
            try await withTemporaryDirectory { directory in
                let port = try freePort()
                let wrapper = try await ServerProcess.start(
                    [Self.script, TestPaths.familysyncBinary, "serve", "--port", "\(port)", "--data-dir", directory + "/data"],
                    executable: "/bin/bash", port: port, workingDirectory: directory
                )
                defer {
                    wrapper.signal(SIGKILL)
                    for pid in processes(mentioning: directory) { kill(pid, SIGKILL) }
                }
                try await wrapper.waitUntilReady()
                let family = try await PairedFamily.create(on: wrapper.client)
                let first = try #require(wrapper.children.first)

                kill(first, SIGKILL)
                let deadline = ContinuousClock.now + .seconds(30)
                while wrapper.children.first.map({ $0 == first }) ?? true, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                let second = try #require(wrapper.children.first)
                #expect(second != first)
                try await wrapper.waitUntilReady()
                // The same data: the family paired before the crash is there.
                #expect(try await family.parent.devices().count == 2)

                wrapper.signal(SIGTERM)
                #expect(try await wrapper.waitForExit() == .exited(0))
                #expect(kill(second, 0) != 0)
                #expect(processes(mentioning: directory + "/data").isEmpty, "the server stopped its database")
                #expect(wrapper.stderr.contains("keep-serving: the server ended by signal 9"))
            }
        }

        /// A server that cannot stay up is started again after 1 s, then 2 s, and given up at the
        /// limit, ending the script with the crash's status (a shell that kills itself stands in).
        @Test func crashesBackOffAndStopAtTheLimit() async throws {
            try await withTemporaryDirectory { directory in
                let wrapper = try await ServerProcess.start(
                    [Self.script, "/bin/bash", "-c", "kill -SEGV $$"], executable: "/bin/bash",
                    environment: ["KEEP_SERVING_CRASHES": "3", "KEEP_SERVING_WINDOW": "300"], workingDirectory: directory
                )
                #expect(try await wrapper.waitForExit() == .exited(128 + SIGSEGV))
                let lines = wrapper.stderr.split(separator: "\n").filter { $0.hasPrefix("keep-serving:") }
                #expect(lines.count == 3, "\(lines)")
                #expect(lines.first?.hasSuffix("starting it again in 1 s") == true)
                #expect(lines.dropFirst().first?.hasSuffix("starting it again in 2 s") == true)
                #expect(lines.last?.hasSuffix("3 crashes within 300 s; not starting it again") == true)
            }
        }

        @Test func anExitWithAStatusIsNotStartedAgain() async throws {
            try await withTemporaryDirectory { directory in
                // Bad configuration is exit 2: starting again would not help.
                let wrapper = try await ServerProcess.start(
                    [Self.script, TestPaths.familysyncBinary, "serve", "--port", "not-a-port", "--data-dir", directory + "/data"],
                    executable: "/bin/bash", workingDirectory: directory
                )
                #expect(try await wrapper.waitForExit() == .exited(2))
                #expect(!wrapper.stderr.contains("keep-serving"))
            }
        }
    }
}
