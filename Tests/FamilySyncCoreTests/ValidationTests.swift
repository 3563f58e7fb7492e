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

    @Test func namesWithInvisibleFormattingAreRefused() throws {
        for bad in ["Johnny's iPad\u{202E}dapi", "Mo\u{200B}m", "\u{2066}Dad\u{2069}", "Ann\u{FEFF}", "Jo\u{200F}"] {
            #expect(performing: { try Validation.name(bad, field: "childName") }, throws: { ($0 as? FamilySyncError)?.field == "childName" })
        }
        // What emoji and scripts need stays: a joined family, a subdivision flag, a Persian name.
        for good in ["👩‍💻 Mom's Mac", "Dad 🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", "می\u{200C}خواهم"] {
            #expect(try Validation.name(good, field: "name") == good)
        }
    }

    @Test func namesOfDotsAloneAreRefused() throws {
        for bad in [".", "..", "..."] {
            #expect(performing: { try RecordNames.checkZoneName(bad, field: "zoneName") }, throws: { ($0 as? FamilySyncError)?.field == "zoneName" })
            #expect(performing: { try RecordNames.checkRecordName(bad, field: "recordName") }, throws: { ($0 as? FamilySyncError)?.field == "recordName" })
        }
        try RecordNames.checkZoneName("a.b", field: "zoneName")
        try RecordNames.checkRecordName(".hidden", field: "recordName")
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
