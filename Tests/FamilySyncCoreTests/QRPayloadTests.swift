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
        // Pins: not base64url of 32 bytes, an empty item, too many, on a plain-HTTP server.
        "familysync://pair?v=1&s=https%3A%2F%2Fa&p=\(UUID())&d=\(UUID())&t=t&k=abc",
        "familysync://pair?v=1&s=https%3A%2F%2Fa&p=\(UUID())&d=\(UUID())&t=t&k=\(pin(1)),",
        "familysync://pair?v=1&s=https%3A%2F%2Fa&p=\(UUID())&d=\(UUID())&t=t&k=\((1...5).map { pin(UInt8($0)) }.joined(separator: ","))",
        "familysync://pair?v=1&s=http%3A%2F%2Fa&p=\(UUID())&d=\(UUID())&t=t&k=\(pin(1))",
    ])
    func rejectsMalformedPayloads(_ text: String) {
        #expect(performing: { try QRPayload(parsing: text) }, throws: { ($0 as? FamilySyncError)?.field == "qrPayload" })
    }

    /// A pinned server's payload carries its keys' pins in `k` and reads back the same.
    @Test func carriesKeyPins() throws {
        let pins = [KeyPin(digest: Array(repeating: 7, count: 32))!, KeyPin(digest: Array(repeating: 9, count: 32))!]
        let payload = QRPayload(serverURL: "https://sync.example.com", pairingID: UUID(), parentDeviceID: UUID(), token: "t", keyPins: pins)
        #expect(payload.string.hasSuffix("&k=\(pins[0]),\(pins[1])"))
        #expect(try QRPayload(parsing: payload.string).keyPins == pins)
        #expect(try QRPayload(parsing: QRPayload(serverURL: "https://a", pairingID: UUID(), parentDeviceID: UUID(), token: "t").string).keyPins.isEmpty)
    }
}

private func pin(_ byte: UInt8) -> String {
    KeyPin(digest: Array(repeating: byte, count: 32))!.description
}
