import FamilySyncCore
import Foundation
import Testing

@Suite struct QRPayloadTests {
    @Test func roundTrips() throws {
        let payload = QRPayload(serverURL: "https://sync.example.com:8443/base", pairingID: UUID(), parentDeviceID: UUID(), token: PairingToken.generate(familyID: UUID()).token)
        #expect(payload.string.hasPrefix("familysync://pair?v=1&s=https%3A%2F%2Fsync.example.com%3A8443%2Fbase&p="))
        #expect(try QRPayload(parsing: payload.string) == payload)
    }

    @Test(arguments: [
        "", "https://example.com/pair?v=1", "familysync://join?v=1", "familysync://pair?v=2&s=x&p=\(UUID())&d=\(UUID())&t=t",
        "familysync://pair?v=1&s=x&p=not-a-uuid&d=\(UUID())&t=t", "familysync://pair?v=1&s=x&p=\(UUID())&d=\(UUID())",
        "familysync://pair?v=1&v=1&s=x&p=\(UUID())&d=\(UUID())&t=t", String(repeating: "x", count: 3000),
    ])
    func rejectsMalformedPayloads(_ text: String) {
        #expect(performing: { try QRPayload(parsing: text) }, throws: { ($0 as? FamilySyncError)?.field == "qrPayload" })
    }
}
