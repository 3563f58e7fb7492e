import FamilySyncCore
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import NIOCore
import Testing

/// The export (§15.2): everything the server holds about a family, or one member, as a tar of
/// JSON Lines that the system's `tar` reads; no secret in it, nothing of another family, nothing
/// of another member in a member's; the export is in the audit log and in its own archive.
@Suite struct ExportTests {
    /// The entries of a tar, by name (the test's own reading; `tar` reads it too, below).
    static func entries(_ bytes: [UInt8]) throws -> [(name: String, text: String)] {
        var entries: [(String, String)] = []
        var offset = 0
        while offset + 512 <= bytes.count {
            let header = Array(bytes[offset..<offset + 512])
            if header.allSatisfy({ $0 == 0 }) { break }
            let name = String(decoding: header[0..<100].prefix { $0 != 0 }, as: UTF8.self)
            let size = try #require(Int(String(decoding: header[124..<135], as: UTF8.self), radix: 8))
            let body = Array(bytes[offset + 512..<offset + 512 + size])
            entries.append((name, String(decoding: body, as: UTF8.self)))
            offset += 512 + (size + 511) / 512 * 512
        }
        return entries
    }

    /// Each kind's lines, its parts joined in name order, as JSON objects.
    static func kinds(_ entries: [(name: String, text: String)]) throws -> [String: [[String: Any]]] {
        var kinds: [String: [[String: Any]]] = [:]
        for (name, text) in entries.sorted(by: { $0.name < $1.name }) where name.hasSuffix(".jsonl") {
            let kind = String(name[..<name.range(of: "/part-")!.lowerBound])
            for line in text.split(separator: "\n") {
                kinds[kind, default: []].append(try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]))
            }
        }
        return kinds
    }

    @Test func aFamilysWholeDataAndNoSecretNorAnotherFamilysAnything() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let (_, sibling) = try await server.pair(by: parent)
            let member = try await server.memberID(of: child)
            let zone = Member.zoneName(of: member)
            #expect(try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: BudgetRecordTests.write("Budget", "budget-social", BudgetRecordTests.budget)).status == .ok)
            _ = try await server.sendCommand(#"{"commandType":"block"}"#, to: child, by: parent)
            let now = server.clock.now()
            let upload = try await server.send(.post, "/v1/usage", credential: child.credential, json:
                #"{"records":[{"recordID":"\#(UUID().lowercased)","logicalID":"app-game","displayName":"Game","category":"gaming","sessionStart":"\#(Instant.format(now.addingTimeInterval(-900)))","sessionEnd":"\#(Instant.format(now.addingTimeInterval(-300)))","totalSeconds":600}]}"#)
            #expect(upload.status == .ok)
            #expect(try await server.heartbeat(child, errors: [server.extensionError()]).status == .ok)
            // A custom type is any text a parent chose: it must not become a path in the archive.
            let custom = try await server.send(.post, "/v1/zones/family/records/modify", credential: parent.credential, json:
                #"{"operations":[{"operationType":"create","record":{"recordName":"note","recordType":"x-../../../etc/\#(String(repeating: "a", count: 120))","fields":{"text":"hi"}}}]}"#)
            #expect(custom.status == .ok, "\(String(buffer: custom.body))")
            let other = try await server.createFamily(name: "Other parent")
            let (_, otherChild) = try await server.pair(by: other)

            let reply = try await server.send(.get, "/v1/families/me/export", credential: parent.credential)
            #expect(reply.status == .ok, "\(String(buffer: reply.body))")
            #expect(reply.headers[.contentType] == "application/x-tar")
            #expect(reply.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"familysync-family-\(parent.familyID.lowercased)-") == true)
            let bytes = Array(reply.body.readableBytesView)
            let entries = try Self.entries(bytes)
            #expect(entries.first?.name == "manifest.json" && entries.last?.name == "counts.json")
            let manifest = try WireCoding.makeDecoder().decode(ExportManifest.self, from: Data(try #require(entries.first).text.utf8))
            #expect(manifest.format == "familysync-export" && manifest.schemaVersion == 1 && manifest.familyId == parent.familyID && manifest.scope == "family")
            let kinds = try Self.kinds(entries)
            let counts = try WireCoding.makeDecoder().decode(ExportCounts.self, from: Data(try #require(entries.last).text.utf8))
            #expect(counts.complete && counts.lines == kinds.mapValues(\.count))
            #expect(kinds["members"]?.count == 3 && kinds["devices"]?.count == 3)
            for kind in ["records/UsageRecord", "records/DailySummary", "records/Budget", "records/ConfigurationCommand", "health/status", "health/errors", "pairings", "zones", "audit/events"] {
                #expect(kinds[kind]?.isEmpty == false, "\(kind)")
            }
            #expect(kinds["records/UsageRecord"]?.first?["recordType"] as? String == "UsageRecord")
            #expect(kinds["records/custom"]?.first?["recordType"] as? String == "x-../../../etc/" + String(repeating: "a", count: 120))
            #expect(entries.allSatisfy { !$0.name.contains("..") && !$0.name.contains("x-") })
            #expect(kinds["audit/events"]?.contains { $0["action"] as? String == "family.exported" } == true, "the export is in its own archive")
            // An event's absent members are left out, as GET /v1/audit leaves them out (never null).
            for event in kinds["audit/events"] ?? [] {
                let actor = event["actor"] as? [String: Any] ?? [:]
                #expect(!event.values.contains { $0 is NSNull } && !actor.values.contains { $0 is NSNull }, "\(event)")
            }

            // No secret, and nothing of the other family.
            let text = String(decoding: bytes, as: UTF8.self).lowercased()
            for secret in [parent.credential, child.credential, sibling.credential] {
                #expect(!text.contains(secret.lowercased()) && !text.contains(String(secret.split(separator: ".").last!).lowercased()))
            }
            #expect(!text.contains("credential_hash") && !text.contains("credentialhash") && !text.contains("token_hash") && !text.contains("tokenhash"))
            for id in [other.familyID, other.deviceID, otherChild.deviceID] { #expect(!text.contains(id.lowercased)) }

            // The system's tar reads it whole.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString).tar")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(bytes).write(to: file)
            let listing = try SystemTar.run(["-tf", file.path])
            #expect(listing.status == 0 && listing.output.split(separator: "\n").map(String.init) == entries.map(\.name), "\(listing.output)")
            let extracted = try SystemTar.run(["-xOf", file.path, "manifest.json"])
            #expect(extracted.status == 0 && extracted.output == entries[0].text)
        }
    }

    @Test func aMembersExportHoldsThatMemberAndNobodyElse() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let (_, sibling) = try await server.pair(by: parent)
            let member = try await server.memberID(of: child)
            let siblingMember = try await server.memberID(of: sibling)
            for (device, name) in [(child, "Game"), (sibling, "Other")] {
                let now = server.clock.now()
                #expect(try await server.send(.post, "/v1/usage", credential: device.credential, json:
                    #"{"records":[{"recordID":"\#(UUID().lowercased)","logicalID":"app-\#(name)","displayName":"\#(name)","category":"gaming","sessionStart":"\#(Instant.format(now.addingTimeInterval(-900)))","sessionEnd":"\#(Instant.format(now.addingTimeInterval(-300)))","totalSeconds":600}]}"#).status == .ok)
            }
            let reply = try await server.send(.get, "/v1/members/\(member.lowercased)/export", credential: parent.credential)
            #expect(reply.status == .ok, "\(String(buffer: reply.body))")
            let entries = try Self.entries(Array(reply.body.readableBytesView))
            let manifest = try WireCoding.makeDecoder().decode(ExportManifest.self, from: Data(entries[0].text.utf8))
            #expect(manifest.scope == "member" && manifest.memberId == member)
            let kinds = try Self.kinds(entries)
            #expect(kinds["members"]?.map { $0["id"] as? String } == [member.lowercased])
            #expect(kinds["devices"]?.map { $0["id"] as? String } == [child.deviceID.lowercased])
            #expect(kinds["records/UsageRecord"]?.map { ($0["fields"] as? [String: Any])?["displayName"] as? String } == ["Game"])
            let text = entries.map(\.text).joined().lowercased()
            for id in [sibling.deviceID, siblingMember] { #expect(!text.contains(id.lowercased), "the sibling's \(id)") }
            let audit = try await server.send(.get, "/v1/audit?member=\(member.lowercased)", credential: parent.credential).decode(AuditPage.self)
            #expect(audit.events.first?.action == "member.exported" && audit.events.first?.subject == member.lowercased)
        }
    }

    /// Pages of records end at 4 MiB whatever their count (a record's fields may be 256 KiB): a
    /// family of large records comes whole, none twice; and the PIN's record stays out.
    @Test func largeRecordsComeWholeAndThePINStaysOut() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let member = try await server.memberID(of: child)
            #expect(try await server.send(.put, "/v1/members/\(member.lowercased)/pin", credential: parent.credential, json: #"{"pin":"2468"}"#).status == .noContent)
            let text = String(repeating: "x", count: 200_000)
            for batch in 0..<3 {
                let operations = (0..<8).map { index in
                    #"{"operationType":"create","record":{"recordName":"big-\#(batch)-\#(index)","recordType":"x-note","fields":{"text":"\#(text)"}}}"#
                }.joined(separator: ",")
                let reply = try await server.send(.post, "/v1/zones/family/records/modify", credential: parent.credential, json: #"{"operations":[\#(operations)]}"#)
                #expect(reply.status == .ok, "\(String(buffer: reply.body).prefix(300))")
            }
            let reply = try await server.send(.get, "/v1/families/me/export", credential: parent.credential)
            #expect(reply.status == .ok)
            let kinds = try Self.kinds(try Self.entries(Array(reply.body.readableBytesView)))
            let names = try #require(kinds["records/custom"]).compactMap { $0["recordName"] as? String }
            #expect(names.count == 24 && Set(names).count == 24)
            #expect(kinds["records/DeviceSettings"]?.contains { $0["recordName"] as? String == "parent-pin" } != true)
        }
    }

    /// One export a family, and so many an instance: the next is 503 `exports_busy`.
    @Test func slotsAreOneAFamilyAndTwoAnInstanceAndGoWithTheirResponse() {
        let slots = ExportSlots(limit: 2)
        let a = UUID(), b = UUID(), c = UUID()
        var first = slots.take(a)
        #expect(first != nil && slots.take(a) == nil)
        let second = slots.take(b)
        #expect(second != nil && slots.take(c) == nil)
        first = nil
        #expect(slots.take(c) != nil && second != nil)
        #expect(slots.take(a) != nil, "a's slot went with its holder")
        // Released once the export's reading ends, however often: the next is free, no other.
        let busy = UUID()
        let full = ExportSlots(limit: 1)
        let held = full.take(busy)
        held?.release()
        held?.release()
        let next = full.take(UUID())
        #expect(next != nil && full.take(UUID()) == nil)
    }
}
