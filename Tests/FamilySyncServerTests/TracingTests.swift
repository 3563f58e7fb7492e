import FamilySyncApp
import FamilySyncCore
import FamilySyncServer
import FamilySyncServerTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// Traces (docs/operations.md, "Traces"): a modify's spans, exported by OpenTelemetry's OTLP/HTTP
/// exporter to a collector stand-in of the test's own, carry its lock wait and its statements,
/// and no family's ids.
@Suite struct TracingTests {
    /// Without `--trace-ids` no span names a family, device or member; with it, the request's
    /// span carries the path (and only that attribute names them).
    @Test(arguments: [false, true])
    func aModifysTraceHasItsLockWaitAndStatements(recordingPaths: Bool) async throws {
        var settings = ServerConfiguration.forTests
        settings.tracesRecordPaths = recordingPaths
        let configuration = settings
        let collector = CollectorStandIn()
        try await collector.application.test(.live) { receiver in
            let export = try TraceExport.start(endpoint: "http://127.0.0.1:\(receiver.port!)", exportDelay: .milliseconds(100), json: true)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await export.service.run() }
                let missing = UUID()
                let (ids, zone, refusal) = try await withTestServer(configuration: configuration, tracer: export.tracer) { server in
                    let parent = try await server.createFamily()
                    let (_, child) = try await server.pair(by: parent)
                    let zone = "child-\(child.deviceID.lowercased)"
                    // A held poll the write wakes: its wait, outside the middleware chain
                    // (`PollParking`), is still a span of its request's trace.
                    let held = try await server.holdPoll(child, since: try await server.databaseToken(child), within: .seconds(20))
                    try await server.configure(zone, by: parent)
                    #expect(try await held.value.poll?.changed == true)
                    // A write refused inside the family's transaction, whose error repeats the
                    // name the client sent (a zone's, here with an id in it): no span may.
                    let extra = #"{"zoneName":"notes-\#(missing.lowercased)"}"#
                    #expect(try await server.send(.post, "/v1/zones", credential: parent.credential, json: extra).status == .created)
                    let refused = try await server.send(.post, "/v1/zones", credential: parent.credential, json: extra)
                    #expect(refused.status == .conflict && refused.error?.reason.contains(missing.lowercased) == true, "\(String(buffer: refused.body))")
                    // A caller's traceparent, well-formed or not, is a link at most: the request
                    // is answered and its trace is the server's own.
                    for traceparent in [Self.callerTraceparent, "00-not-a-trace-01", String(repeating: "f", count: 300)] {
                        let reply = try await server.send(.get, "/v1/devices", credential: parent.credential, headers: [("traceparent", traceparent)])
                        #expect(reply.status == .ok, "\(traceparent): \(String(buffer: reply.body))")
                    }
                    return ([parent.familyID, parent.deviceID, child.deviceID, missing].flatMap { [$0.lowercased, $0.uuidString] }, zone, refused.errorCode)
                }
                let route = "POST /v1/zones/{zone}/records/modify"
                // Each request's spans whole: the exporter sends them in batches as they end.
                let all = try await collector.spans { spans in
                    let written = CollectorStandIn.names(inTraceOf: route, status: "200", in: spans)
                    let refused = CollectorStandIn.names(inTraceOf: "POST /v1/zones", status: "409", in: spans)
                    return ["family.lock_wait", "INSERT", "COMMIT"].allSatisfy(written.contains) && refused.contains("family.write")
                        && spans.filter { $0.name == "GET /v1/devices" }.count >= 3
                        && CollectorStandIn.names(inTraceOf: "GET /v1/poll", status: "200", in: spans).contains("poll.wait")
                }
                let poll = try #require(all.first { $0.name == "GET /v1/poll" })
                let wait = try #require(all.first { $0.name == "poll.wait" })
                #expect(wait.traceID == poll.traceID && wait.parentSpanID == poll.spanID, "\(wait)")
                #expect(wait.attributes["familysync.poll.outcome"] == "recheck", "\(wait)")
                group.cancelAll()
                try Self.verify(all, route: route, refusal: refusal, ids: ids, zone: zone, recordingPaths: recordingPaths)
            }
        }
    }
}

extension TracingTests {
    /// What the collector received, held to the traces' shape and to naming no id.
    static func verify(_ all: [CollectorStandIn.Span], route: String, refusal: String, ids: [String], zone: String, recordingPaths: Bool) throws {
        let callerTrace = Data(Self.callerTraceID.chunks(ofCount: 2).map { UInt8($0, radix: 16)! }).base64EncodedString()
        #expect(!all.contains { $0.traceID == callerTrace }, "a caller's traceparent chose a trace")
        let request = try #require(all.first { $0.name == route && $0.attributes["http.response.status_code"] == "200" })
        let spans = all.filter { $0.traceID == request.traceID }
        let failed = try #require(all.first { $0.name == "POST /v1/zones" && $0.attributes["http.response.status_code"] == "409" })
        let failedWrite = try #require(all.first { $0.traceID == failed.traceID && $0.name == "family.write" })
        // Marked failed with the error's code, not its text.
        #expect(failedWrite.status == refusal && failedWrite.attributes["error.type"] == refusal, "\(failedWrite)")
        #expect(request.attributes["http.route"] == "/v1/zones/{zone}/records/modify")
        #expect(request.attributes["http.response.status_code"] == "200")
        #expect(request.attributes["url.path"] == (recordingPaths ? "/v1/zones/\(zone)/records/modify" : nil))
        let write = try #require(spans.first { $0.name == "family.write" })
        let lockWait = try #require(spans.first { $0.name == "family.lock_wait" })
        #expect(lockWait.parentSpanID == write.spanID)
        #expect(spans.contains { $0.name == "db.lease_wait" })
        let statements = spans.filter { $0.attributes["db.system.name"] == "postgresql" }
        let lock = statements.first { $0.attributes["db.query.text"]?.contains("FOR UPDATE") == true }
        #expect(lock?.parentSpanID == write.spanID, "the family's lock statement is in the write")
        #expect(statements.contains { $0.name == "INSERT" || $0.name == "WITH" }, "the record's write: \(statements.map(\.name))")
        // Every span of the trace descends from the request's.
        let byID = Dictionary(spans.map { ($0.spanID, $0) }, uniquingKeysWith: { first, _ in first })
        for span in spans where span.spanID != request.spanID {
            var ancestor = span.parentSpanID
            while let id = ancestor, id != request.spanID { ancestor = byID[id]?.parentSpanID }
            #expect(ancestor == request.spanID, "\(span.name) is not under the request's span")
        }
        // Nothing any span of either request carries names an id: attributes, events,
        // statuses.
        for span in all {
            for (key, value) in span.attributes where !(recordingPaths && key == "url.path") {
                for id in ids { #expect(!value.contains(id), "\(span.name)'s \(key) names \(id)") }
            }
            for text in span.events + [span.status] {
                for id in ids { #expect(!text.contains(id), "\(span.name)'s event or status names \(id): \(text)") }
            }
        }
    }

    static let callerTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let callerTraceparent = "00-\(callerTraceID)-00f067aa0ba902b7-01"
}

extension String {
    /// Its characters in runs of `count` (hex pairs).
    func chunks(ofCount count: Int) -> [String] {
        stride(from: 0, to: self.count, by: count).map { start in
            let from = index(startIndex, offsetBy: start)
            return String(self[from..<(index(from, offsetBy: count, limitedBy: endIndex) ?? endIndex)])
        }
    }
}

/// An OTLP/HTTP receiver of JSON spans (`POST /v1/traces`), keeping what it was sent.
final class CollectorStandIn: Sendable {
    struct Span: Sendable {
        var traceID: String
        var spanID: String
        var parentSpanID: String?
        var name: String
        var attributes: [String: String]
        /// Every event's name and attributes' values, as text.
        var events: [String]
        /// The status's message.
        var status: String
    }

    private let spans = Mutex<[Span]>([])

    var application: some ApplicationProtocol {
        let router = Router()
        router.post("/v1/traces") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 16 << 20)
            self.receive(Data(buffer: body))
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    private func receive(_ body: Data) {
        guard let export = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return }
        var received: [Span] = []
        for resource in export["resourceSpans"] as? [[String: Any]] ?? [] {
            for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
                for span in scope["spans"] as? [[String: Any]] ?? [] {
                    var attributes: [String: String] = [:]
                    for attribute in span["attributes"] as? [[String: Any]] ?? [] {
                        guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any], let first = value.values.first else { continue }
                        attributes[key] = "\(first)"
                    }
                    let parent = (span["parentSpanId"] as? String).flatMap { $0.isEmpty ? nil : $0 }
                    let events = (span["events"] as? [[String: Any]] ?? []).map { event in
                        "\(event["name"] ?? "") " + (event["attributes"] as? [[String: Any]] ?? []).map { "\($0["value"] ?? "")" }.joined(separator: " ")
                    }
                    received.append(Span(
                        traceID: span["traceId"] as? String ?? "", spanID: span["spanId"] as? String ?? "", parentSpanID: parent,
                        name: span["name"] as? String ?? "", attributes: attributes, events: events,
                        status: (span["status"] as? [String: Any])?["message"] as? String ?? ""
                    ))
                }
            }
        }
        spans.withLock { $0.append(contentsOf: received) }
    }

    /// The names of the spans of the trace whose root is the span `name` answered `status`.
    static func names(inTraceOf name: String, status: String, in spans: [Span]) -> [String] {
        guard let root = spans.first(where: { $0.name == name && $0.attributes["http.response.status_code"] == status }) else { return [] }
        return spans.filter { $0.traceID == root.traceID }.map(\.name)
    }

    /// Every span received, once `complete` says all that is wanted came (the exporter sends in
    /// batches); a bound of a minute, not a measure.
    func spans(until complete: ([Span]) -> Bool) async throws -> [Span] {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let all = spans.withLock { $0 }
            if complete(all) { return all }
            guard ContinuousClock.now < deadline else {
                Issue.record("the spans did not arrive: \(all.map { "\($0.name) \($0.traceID)" })")
                return []
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
