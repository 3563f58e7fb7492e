import FamilySyncCore
import Testing

@Suite struct ValidationTests {
    @Test func namesAreTrimmedAndBounded() throws {
        #expect(try Validation.name("  Mom's iPhone \n", field: "name") == "Mom's iPhone")
        #expect(try Validation.name(String(repeating: "é", count: 100), field: "name").count == 100)
        for bad in ["", "   ", String(repeating: "x", count: 101), "tab\u{0007}bell"] {
            #expect(performing: { try Validation.name(bad, field: "device.name") }, throws: { ($0 as? FamilySyncError)?.field == "device.name" })
        }
    }

    @Test func timeZonesAreIANANames() throws {
        for zone in ["Europe/Berlin", "America/Chicago", "UTC", "Asia/Kolkata"] {
            #expect(try Validation.timeZone(zone, field: "timeZone") == zone)
        }
        for bad in ["", "Mars/Olympus", "CET+1", "europe/berlin", "+02:00"] {
            #expect(performing: { try Validation.timeZone(bad, field: "timeZone") }, throws: { ($0 as? FamilySyncError)?.code == .badRequest })
        }
    }
}
