import Foundation

/// A test server's TCP connections, counted by their server ends with iproute2's `ss` (the
/// kernel's socket table by netlink: /proc/net/tcp, read in pieces while other tests open and
/// close sockets, misses some).
public enum TCPConnections {
    public static func established(toPort port: Int) async throws -> Int {
        try await count(onPort: port, states: "established")
    }

    /// The server's ends of connections on `port` that are open or that only the client closed
    /// (CLOSE-WAIT).
    public static func serverSide(ofPort port: Int) async throws -> Int {
        try await count(onPort: port, states: "established") + count(onPort: port, states: "close-wait")
    }

    private static func count(onPort port: Int, states: String) async throws -> Int {
        try await sockets(onPort: port, states: states).count
    }

    public static func sockets(onPort port: Int, states: String = "all") async throws -> [String] {
        try await withinBound(.seconds(30), "ss listing the sockets on port \(port)") {
            try await runProgram("/usr/bin/ss", ["-Htn", "state", states, "( sport = :\(port) )"]).output.split(separator: "\n").map(String.init)
        }
    }

    /// Every socket on `port`, for a failure's message.
    public static func describe(port: Int) async -> String {
        ((try? await sockets(onPort: port)) ?? []).joined(separator: "\n")
    }

    /// The local ports of this process's connections to `port` (their client ends).
    public static func clientPorts(to port: Int) async throws -> [String] {
        try await withinBound(.seconds(30), "ss listing the connections to port \(port)") {
            try await runProgram("/usr/bin/ss", ["-Htn", "state", "established", "( dport = :\(port) )"]).output
        }.split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(2).first.map(String.init)
        }
    }

    public static func waitUntil(toPort port: Int, count: Int, within limit: Duration) async throws {
        let deadline = ContinuousClock.now + limit
        while try await established(toPort: port) != count {
            guard ContinuousClock.now < deadline else { throw TestFailure("\(try await established(toPort: port)) connections to port \(port), not \(count)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
