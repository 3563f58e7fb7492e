import Foundation
import NIOCore
import NIOPosix

// NIO's event loops as Swift's global executor (`takeover`, a floor-serve or serve option): set
// before anything runs, as NIO requires.
if CommandLine.arguments.contains("takeover") {
    guard NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() else { fatalError("the takeover failed") }
}

// The performance harnesses (Benchmarks/README.md):
//   familysync-bench [records] [record count] [incremental requests]
//   familysync-bench polls [held polls] [wake rounds] [idle polls]
//   familysync-bench usage [uploads] [records per upload]
//   familysync-bench sync [wake rounds] [queued usage records]
//   familysync-bench recovery [rounds]
//   familysync-bench soak [devices] [minutes]
//   familysync-bench health [devices] [minutes]
//   familysync-bench pin [seconds]
//   familysync-bench push [changes] [families]
//   familysync-bench afterload [burst seconds] [connections]
//   familysync-bench concurrency [seconds a phase] [clients]
//   familysync-bench dashboard [rounds]
//   familysync-bench neighbours [writers] [seconds] [quiet families] [direct|pgbouncer|both]
//   familysync-bench export [usage records]
//   familysync-bench day [child devices] [speed] [simulated hours] [carried|separate]
//   familysync-bench tracing [seconds a phase] [clients] [rounds]
//   familysync-bench outbox [changes] [rounds]
//   familysync-bench peersync [rounds] [records]   (Kinto from Benchmarks/kinto.sh)
//   familysync-bench syncneighbour [records] [syncers]
//   familysync-bench floor [seconds a row] [rounds] [connections] [only=…] [takeover]
//   familysync-bench cluster-ops <database url> <cluster dir> [families] [seconds a phase] [seconds stopped]
var arguments = Array(CommandLine.arguments.dropFirst())
var harness = "records"
if let first = arguments.first, Int(first) == nil {
    harness = first
    arguments.removeFirst()
}
// A harness that cannot run says why in one line (a tool missing, a refusal it did not expect).
do {
    switch harness {
    case "records":
        try await RecordBenchmark.run(arguments)
    case "polls":
        try await PollBenchmark.run(arguments)
    case "usage":
        try await UsageBenchmark.run(arguments)
    case "sync":
        try await SyncBenchmark.run(arguments)
    case "recovery":
        try await RecoveryBenchmark.run(arguments)
    case "soak":
        try await SoakBenchmark.run(arguments)
    case "health":
        try await HealthBenchmark.run(arguments)
    case "pin":
        try await PINBenchmark.run(arguments)
    case "push":
        try await PushBenchmark.run(arguments)
    case "concurrency":
        try await ConcurrencyBenchmark.run(arguments)
    case "afterload":
        try await AfterLoadBenchmark.run(arguments)
    case "dashboard":
        try await DashboardBenchmark.run(arguments)
    case "neighbours":
        try await NeighboursBenchmark.run(arguments)
    case "export":
        try await ExportBenchmark.run(arguments)
    case "day":
        try await DayBenchmark.run(arguments)
    case "tracing":
        try await TracingBenchmark.run(arguments)
    case "outbox":
        try await OutboxBenchmark.run(arguments)
    case "cluster-ops":
        try await ClusterOpsBenchmark.run(arguments)
    case "peersync":
        try await PeerSyncBenchmark.run(arguments)
    case "syncneighbour":
        try await SyncNeighbourBenchmark.run(arguments)
    case "floor":
        try await FloorBenchmark.run(arguments)
    case "floor-serve":
        try await FloorServer.run(arguments)
    case "serve":
        // The server in a process of its own, so that its memory and CPU are measured alone.
        try await BenchServer.run(arguments)
    default:
        print("usage: familysync-bench [records|polls|usage|sync|recovery|soak|health|pin|push|afterload|concurrency|dashboard|neighbours|export|day|tracing|outbox|floor|cluster-ops|peersync|syncneighbour] [sizes…]")
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("familysync-bench \(harness): \(error)\n".utf8))
    exit(1)
}
