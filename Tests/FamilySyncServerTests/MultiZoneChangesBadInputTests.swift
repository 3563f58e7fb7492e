import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// `POST /v1/changes/zones` with a body at fault: the whole request is refused with §1.1's body,
/// naming the member, and nothing changes (not even the device's last sync). Faults of one zone
/// that the body cannot show (a zone not seen, a token wrong or expired) are answered per zone:
/// MultiZoneChangesTests.
@Suite struct MultiZoneChangesBadInputTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var json: String
        var status: HTTPResponse.Status = .badRequest
        var code: String = "BAD_REQUEST"
        var field: String?
    }

    static func zones(_ names: [String]) -> String {
        names.map { #"{"zoneName":"\#($0)"}"# }.joined(separator: ",")
    }

    static let cases: [Case] = [
        Case(description: "not JSON", json: "zones please"),
        Case(description: "JSON cut short", json: #"{"zones":[{"zoneName":"family"}"#),
        Case(description: "not an object", json: #"[{"zoneName":"family"}]"#),
        Case(description: "an empty body", json: ""),
        Case(description: "no zones member", json: #"{"limit":10}"#, field: "zones"),
        Case(description: "zones null", json: #"{"zones":null}"#, field: "zones"),
        Case(description: "zones not a list", json: #"{"zones":{"zoneName":"family"}}"#, field: "zones"),
        Case(description: "an empty list", json: #"{"zones":[]}"#, field: "zones"),
        Case(description: "51 zones", json: #"{"zones":[\#(zones((0...50).map { "z\($0)" }))]}"#, status: .contentTooLarge, code: "LIMIT_EXCEEDED", field: "zones"),
        Case(description: "a zone twice", json: #"{"zones":[\#(zones(["family", "notes", "family"]))]}"#, field: "zones[2].zoneName"),
        Case(description: "a zone without its name", json: #"{"zones":[{"zoneName":"family"},{"since":"x"}]}"#, field: "zones[1].zoneName"),
        Case(description: "a zone name null", json: #"{"zones":[{"zoneName":null}]}"#, field: "zones[0].zoneName"),
        Case(description: "a zone name not a string", json: #"{"zones":[{"zoneName":7}]}"#, field: "zones[0].zoneName"),
        Case(description: "a malformed zone name", json: #"{"zones":[\#(zones(["family", "Not A Zone"]))]}"#, field: "zones[1].zoneName"),
        Case(description: "an empty zone name", json: #"{"zones":[\#(zones([""]))]}"#, field: "zones[0].zoneName"),
        Case(description: "a zone name too long", json: #"{"zones":[\#(zones([String(repeating: "z", count: 65)]))]}"#, field: "zones[0].zoneName"),
        Case(description: "since not a string", json: #"{"zones":[{"zoneName":"family","since":12}]}"#, field: "zones[0].since"),
        Case(description: "an unknown member of a zone", json: #"{"zones":[{"zoneName":"family","token":"x"}]}"#, field: "zones[0].token"),
        Case(description: "an unknown member", json: #"{"zones":[\#(zones(["family"]))],"atomic":true}"#, field: "atomic"),
        Case(description: "limit 0", json: #"{"zones":[\#(zones(["family"]))],"limit":0}"#, field: "limit"),
        Case(description: "limit 1001", json: #"{"zones":[\#(zones(["family"]))],"limit":1001}"#, field: "limit"),
        Case(description: "limit negative", json: #"{"zones":[\#(zones(["family"]))],"limit":-5}"#, field: "limit"),
        // As for any number the decoder cannot fit (BadInputTests), §1.1's body without a `field`.
        Case(description: "limit a fraction", json: #"{"zones":[\#(zones(["family"]))],"limit":2.5}"#),
        Case(description: "limit a string", json: #"{"zones":[\#(zones(["family"]))],"limit":"200"}"#, field: "limit"),
        Case(description: "limit null", json: #"{"zones":[\#(zones(["family"]))],"limit":null}"#, field: "limit"),
        Case(description: "limit beyond any integer", json: #"{"zones":[\#(zones(["family"]))],"limit":1e30}"#),
        Case(description: "a format not known", json: #"{"zones":[\#(zones(["family"]))],"format":"tiny"}"#, field: "format"),
        Case(description: "a format not a string", json: #"{"zones":[\#(zones(["family"]))],"format":1}"#, field: "format"),
        Case(description: "format null", json: #"{"zones":[\#(zones(["family"]))],"format":null}"#, field: "format"),
        Case(description: "a member named twice", json: #"{"zones":[\#(zones(["family"]))],"zones":[\#(zones(["notes"]))]}"#, field: "zones"),
        // A fault after good zones still fails the whole request: nothing is read, nothing marked.
        Case(description: "a bad zone after good ones", json: #"{"zones":[\#(zones(["family", "notes", "x y"]))]}"#, field: "zones[2].zoneName"),
    ]

    /// Every case on one server and one family: one database instead of one a case, so the rest
    /// of the suite does not queue behind these, and one family's rows to fingerprint (on Citus,
    /// where the database is shared, a fingerprint reads each of the server's families in turn).
    /// Each case changes nothing, which is what it checks, so none leaves anything for the next.
    @Test func everyBadBodyIsRefusedWholeAndChangesNothing() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            _ = try await server.send(.post, "/v1/zones", credential: parent.credential, json: #"{"zoneName":"notes"}"#)
            // Authenticated once first, so that the requests themselves have nothing to record of the device.
            _ = try await server.send(.get, "/v1/devices/me", credential: parent.credential)
            for bad in Self.cases {
                let before = try await server.fingerprint()
                let reply = try await server.send(.post, "/v1/changes/zones", credential: parent.credential, json: bad.json)
                #expect(reply.status == bad.status, "\(bad): \(String(buffer: reply.body).prefix(300))")
                #expect(reply.errorCode == bad.code, "\(bad)")
                if let field = bad.field { #expect(reply.error?.field == field, "\(bad)") }
                #expect(try await server.fingerprint() == before, "\(bad)")
            }
        }
    }

    /// A device awaiting confirmation reads no zone, as with the single-zone fetch: 403 before
    /// the body is looked at.
    @Test func anAwaitingDeviceIsRefused() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, awaiting) = try await server.pair(by: parent, confirm: false)
            _ = try await server.send(.get, "/v1/devices/me", credential: awaiting.credential)
            let before = try await server.fingerprint()
            let reply = try await server.send(.post, "/v1/changes/zones", credential: awaiting.credential, json: #"{"zones":[{"zoneName":"family"}]}"#)
            #expect(reply.status == .forbidden && reply.errorCode == "ACCESS_DENIED")
            #expect(try await server.fingerprint() == before)
        }
    }
}
