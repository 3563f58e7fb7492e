import Foundation

/// The string a parent's QR code shows (PROTOCOL §3):
/// `familysync://pair?v=1&s=<server base URL, percent-encoded>&p=<pairingId>&d=<parentDeviceId>&t=<token>`,
/// and `&k=<pin>,<pin>` when the server pins its key in pairing (§3.2).
public struct QRPayload: Sendable, Equatable {
    public var serverURL: String
    public var pairingID: UUID
    public var parentDeviceID: UUID
    public var token: String
    /// The server's keys the device is to accept; empty: the system's trust as for any server.
    public var keyPins: [KeyPin]

    public init(serverURL: String, pairingID: UUID, parentDeviceID: UUID, token: String, keyPins: [KeyPin] = []) {
        self.serverURL = serverURL
        self.pairingID = pairingID
        self.parentDeviceID = parentDeviceID
        self.token = token
        self.keyPins = keyPins
    }

    public var string: String {
        var components = URLComponents()
        components.scheme = "familysync"
        components.host = "pair"
        components.queryItems = [
            URLQueryItem(name: "v", value: "1"),
            URLQueryItem(name: "s", value: serverURL),
            URLQueryItem(name: "p", value: pairingID.lowercased),
            URLQueryItem(name: "d", value: parentDeviceID.lowercased),
            URLQueryItem(name: "t", value: token),
        ] + (keyPins.isEmpty ? [] : [URLQueryItem(name: "k", value: keyPins.map(\.description).joined(separator: ","))])
        // URLComponents leaves ':' and '/' of the server URL as they are; encode them so the
        // payload is one opaque query value whatever a scanner does with it.
        components.percentEncodedQueryItems = components.percentEncodedQueryItems?.map {
            URLQueryItem(name: $0.name, value: $0.value?.replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: "/", with: "%2F"))
        }
        return components.string ?? ""
    }

    /// Parses a scanned payload; `BAD_REQUEST` on `field` for anything malformed.
    public init(parsing text: String, field: String = "qrPayload") throws(FamilySyncError) {
        guard text.utf8.count <= 2048, let components = URLComponents(string: text),
            components.scheme == "familysync", components.host == "pair"
        else {
            throw .badRequest("The QR payload is not a familysync://pair link.", field: field)
        }
        var values: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard values[item.name] == nil else { throw .badRequest("The QR payload repeats '\(item.name)'.", field: field) }
            values[item.name] = item.value ?? ""
        }
        guard values["v"] == "1" else { throw .badRequest("The QR payload's version is not 1.", field: field) }
        guard let server = values["s"], !server.isEmpty,
            let pairing = values["p"].flatMap(UUID.init(uuidString:)),
            let parent = values["d"].flatMap(UUID.init(uuidString:)),
            let token = values["t"], !token.isEmpty
        else {
            throw .badRequest("The QR payload lacks s, p, d or t.", field: field)
        }
        var pins: [KeyPin] = []
        if let text = values["k"] {
            guard let parsed = KeyPins.parse(text) else {
                throw .badRequest("The QR payload's k is not one to \(KeyPins.limit) key pins (base64url SHA-256, comma-separated).", field: field)
            }
            guard server.lowercased().hasPrefix("https://") else { throw .badRequest("The QR payload pins keys of a server that is not https.", field: field) }
            pins = parsed
        }
        self.init(serverURL: server, pairingID: pairing, parentDeviceID: parent, token: token, keyPins: pins)
    }
}
