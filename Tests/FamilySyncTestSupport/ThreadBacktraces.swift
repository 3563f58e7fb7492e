import Foundation

/// Every thread's stack in this process, for a run that hung: what the suite's watchdog prints
/// before it ends the run, so that a hang seen once (on CI, say) says where it was. Read with
/// Debian's `gdb` when the machine has it, names demangled by the toolchain's `swift-demangle`;
/// threads with the same stack are printed once, with their count.
enum ThreadBacktraces {
    static func describe() -> String {
        guard let gdb = ["/usr/bin/gdb", "/bin/gdb"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            return "(no gdb on this machine: no thread stacks)"
        }
        let script = "\(gdb) -p \(getpid()) -batch -nx -ex 'set pagination off' -ex 'thread apply all bt 40' 2>/dev/null"
            + (demangler.map { " | \($0) --simplified" } ?? "")
        guard let output = try? run(["/usr/bin/timeout", "120", "/bin/sh", "-c", script]) else { return "(gdb could not run)" }
        // A machine that forbids attaching (ptrace) gives gdb no threads: say so, not "0 threads".
        guard output.contains("\nThread ") || output.hasPrefix("Thread ") else {
            return "(gdb read no threads: this machine may not let a process be traced)"
        }
        return condensed(output)
    }

    /// The toolchain's demangler, next to the `swift` on the PATH.
    static var demangler: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { "\($0)/swift-demangle" }.first(where: FileManager.default.isExecutableFile(atPath:))
    }

    /// gdb's `thread apply all bt` as one block a distinct stack, each frame its function and
    /// place: `3 threads:` over the frames they share.
    static func condensed(_ output: String) -> String {
        var stacks: [[String]] = []
        var current: [String]?
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("Thread ") {
                if let current { stacks.append(current) }
                current = []
            } else if line.hasPrefix("#"), current != nil {
                current!.append(frame(String(line)))
            }
        }
        if let current { stacks.append(current) }
        var counts: [[String]: Int] = [:]
        var order: [[String]] = []
        for stack in stacks {
            if counts[stack] == nil { order.append(stack) }
            counts[stack, default: 0] += 1
        }
        // CI shows a log's end: the idle threads are counted, the others printed whole.
        let (idle, busy) = (order.filter(isIdle), order.filter { !isIdle($0) })
        let idleCount = idle.reduce(0) { $0 + counts[$1]! }
        return "\(stacks.count) threads; \(idleCount) idle (waiting for work in epoll, select or a semaphore, nothing of ours on their stack), not shown; the others:\n"
            + busy.map { stack in
                "\(counts[stack]!) thread(s):\n" + stack.map { "    " + $0 }.joined(separator: "\n")
            }.joined(separator: "\n")
    }

    /// A thread parked waiting for work: an idle event loop, GCD worker or run loop.
    static func isIdle(_ stack: [String]) -> Bool {
        let waiting = ["epoll_wait", "select", "ppoll", "sem_wait", "sigsuspend", "futex"]
        let ours = ["FamilySync", "URLSession", "curl", "_dispatch_sync", "Lock", "lock", "Test", "Mutex", "Process"]
        return stack.prefix(3).contains { frame in waiting.contains { frame.contains($0) } }
            && !stack.contains { frame in ours.contains { frame.contains($0) } }
    }

    /// `#4  0x00… in f (args) at file.swift:12` as `f at file.swift:12`.
    static func frame(_ line: String) -> String {
        var text = Substring(line)
        if let inRange = text.range(of: " in ") { text = text[inRange.upperBound...] }
        else if let space = text.firstIndex(of: " ") { text = text[space...].drop(while: { $0 == " " }) }
        var name = String(text)
        var place = ""
        if let at = name.range(of: " at ", options: .backwards) {
            place = " at " + name[at.upperBound...].split(separator: "/").last.map(String.init)!
            name = String(name[..<at.lowerBound])
        } else if let from = name.range(of: " from ", options: .backwards) {
            place = " from " + name[from.upperBound...].split(separator: "/").last.map(String.init)!
            name = String(name[..<from.lowerBound])
        }
        if let arguments = name.range(of: " (", options: .backwards) { name = String(name[..<arguments.lowerBound]) }
        return String(name.prefix(200)) + place
    }

    private static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
