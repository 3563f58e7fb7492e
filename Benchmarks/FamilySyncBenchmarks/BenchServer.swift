import FamilySyncApp
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncServer
import FamilySyncWeb
import Foundation
import Logging
import PostgresNIO
import Prometheus
import ServiceLifecycle

/// `familysync-bench serve <database url> [connections=N] [listen=<url>] [prepared=off]`:
/// the server as `familysync serve` runs it, on a free loopback port it prints as `port=N`, until
/// SIGTERM. `connections`: the pool's size (`--db-connections`);
/// `listen`: the listener's own URL (`--listen-database-url`); `prepared=off`:
/// `--prepared-statements off`, as behind PgBouncer in transaction mode; `otlp=<url>`: tracing
/// on, spans to that collector (`--otlp-endpoint`); `takeover`: NIO's loops as Swift's global
/// executor (main.swift); `waiting=N`: a family's line of writes holds N (`FamilyWriteQueue`);
/// `stream-log`: swift-log's `StreamLogHandler` as it is, not `TextLogHandler` over it as
/// `familysync serve` logs; `ladder`: the floor harness's rungs mounted too (`FloorLadder`);
/// `tls=<directory>`: HTTPS and HTTP/2 with that directory's pair (`BenchTLS`).
enum BenchServer {
    static func run(_ arguments: [String]) async throws {
        if arguments.contains("stream-log") {
            LoggingSystem.bootstrap { StreamLogHandler.standardOutput(label: $0) }
        } else {
            LoggingSystem.bootstrap { TextLogHandler.standardOutput(label: $0) }
        }
        var logger = Logger(label: "familysync.bench.server")
        logger.logLevel = .warning
        let url = try DatabaseURL(arguments[0])
        let options = arguments.dropFirst()
        func option(_ name: String) -> String? {
            options.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
        }
        let connections = option("connections").flatMap { Int($0) } ?? LoopBoundPool.defaultLimit
        let listener = try option("listen").map { try DatabaseURL($0) } ?? url
        let pool = try url.servingPool(connections: connections, logger: logger)
        let tracing = try option("otlp").map { try TraceExport.start(endpoint: $0, logger: logger) }
        var configuration = ServerConfiguration(port: 0, unauthenticatedRateLimit: RateLimit(burst: 1_000_000, perMinute: 1_000_000))
        configuration.deviceRateLimit = RateLimit(burst: 1_000_000_000, perMinute: 1_000_000_000)
        if let pause = option("refusal-pause").flatMap({ Int($0) }) { configuration.refusalReadPause = .milliseconds(pause) }
        if let directory = option("tls") {
            configuration.tls = try ServedCertificate(certificateFile: directory + "/server.crt", keyFile: directory + "/server.key", logger: logger)
        }
        let app = buildApplication(
            configuration: configuration,
            dependencies: ServerDependencies(
                pool: pool, listener: try listener.connectionConfiguration(), metricsRegistry: PrometheusCollectorRegistry(), logger: logger,
                preparedStatements: option("prepared") != "off",
                familyWrites: option("waiting").flatMap { Int($0) }.map { FamilyWriteQueue.Limits(waiting: $0) } ?? .init(), tracer: tracing?.tracer
            ),
            modules: [WebDashboard()] + (options.contains("ladder") ? [FloorLadder()] : [])
        ) { channel in
            FileHandle.standardOutput.write(Data("port=\(channel.localAddress?.port ?? 0)\n".utf8))
        }
        // The exporter first, so that it stops last, as `serve` runs it.
        let services: [any Service] = (tracing.map { [$0.service] } ?? []) + [app]
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// Starts this executable as a server process and returns it with its port.
    /// `connections`, `listenURL` and `preparedStatements` as the options of `serve` above; its
    /// log to `log` (a file) instead of this process's standard error.
    static func launch(
        databaseURL: DatabaseURL, connections: Int? = nil, listenURL: DatabaseURL? = nil, preparedStatements: Bool = true,
        log: String? = nil, otlpEndpoint: String? = nil, takeover: Bool = false, waiting: Int? = nil,
        streamLog: Bool = false, ladder: Bool = false, refusalPause: Int? = nil, tls: BenchTLS? = nil
    ) throws -> (process: Process, port: Int) {
        var arguments = ["serve", databaseURL.connectionString]
        if let connections { arguments.append("connections=\(connections)") }
        if let listenURL { arguments.append("listen=\(listenURL.connectionString)") }
        if !preparedStatements { arguments.append("prepared=off") }
        if let otlpEndpoint { arguments.append("otlp=\(otlpEndpoint)") }
        if takeover { arguments.append("takeover") }
        if let waiting { arguments.append("waiting=\(waiting)") }
        if streamLog { arguments.append("stream-log") }
        if ladder { arguments.append("ladder") }
        if let refusalPause { arguments.append("refusal-pause=\(refusalPause)") }
        if let tls { arguments.append("tls=\(tls.directory)") }
        return try launch(arguments, log: log)
    }

    /// This executable, run with `arguments` as a server that prints `port=N` once it listens;
    /// the process and the port. Its standard error to `log` (a file) if given.
    static func launch(_ arguments: [String], log: String? = nil) throws -> (process: Process, port: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        if let log {
            FileManager.default.createFile(atPath: log, contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchFailure("the server process ended before it listened") }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let port = text.split(separator: "\n").first.flatMap({ Int($0.replacingOccurrences(of: "port=", with: "")) }) else {
            throw BenchFailure("unexpected server output: \(text)")
        }
        return (process, port)
    }
}

/// A process's resident memory and CPU time, from /proc.
struct ProcessSample {
    var residentBytes: Int
    var cpuSeconds: Double

    init(pid: Int32) throws {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { throw BenchFailure("no VmRSS for \(pid)") }
        residentBytes = kilobytes * 1024
        // Fields 14 and 15 of /proc/pid/stat (after the parenthesised name): utime, stime in ticks.
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        cpuSeconds = (Double(fields[11])! + Double(fields[12])!) / ticks
    }
}
