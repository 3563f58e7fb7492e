import Subprocess
import SystemPackage

/// `program arguments…` run to its end: its exit status (-1 when a signal ended it) and standard
/// output (standard error dropped). Not Foundation's `Process`, whose `waitUntilExit` blocks a
/// thread of the shared pool: with two cores, two tests waiting on `ss` or `curl` at once left the
/// pool without a thread.
public func runProgram(_ program: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
    let result = try await Subprocess.run(
        .path(FilePath(program)), arguments: Arguments(arguments), input: .none, output: .string(limit: 1 << 22), error: .discarded
    )
    let status: Int32 = if case .exited(let code) = result.terminationStatus { code } else { -1 }
    return (status, result.standardOutput ?? "")
}
