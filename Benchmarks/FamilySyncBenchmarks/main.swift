import Foundation

// The performance harnesses (Benchmarks/README.md):
//   familysync-bench [records] [record count] [incremental requests]
//   familysync-bench polls [held polls] [wake rounds] [idle polls]
var arguments = Array(CommandLine.arguments.dropFirst())
var harness = "records"
if let first = arguments.first, Int(first) == nil {
    harness = first
    arguments.removeFirst()
}
switch harness {
case "records":
    try await RecordBenchmark.run(arguments)
case "polls":
    try await PollBenchmark.run(arguments)
case "serve":
    // The server in a process of its own, so that its memory and CPU are measured alone.
    try await BenchServer.run(arguments)
default:
    print("usage: familysync-bench [records|polls] [sizes…]")
    exit(2)
}
