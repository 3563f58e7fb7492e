import Foundation

/// The string a signing-in device's QR code shows, for a parent device's camera (PROTOCOL §3.1):
/// `familysync://sign-in?v=1&s=<server base URL, percent-encoded>&c=<code>`. It carries only the
/// code, which is worth nothing without a parent's credential.
public struct SignInQRPayload: Sendable, Equatable {
    public var serverURL: String
    public var code: SignInCode

    public init(serverURL: String, code: SignInCode) {
        self.serverURL = serverURL
        self.code = code
    }

    public var string: String {
        let server = serverURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
        return "familysync://sign-in?v=1&s=\(server)&c=\(code.normalized)"
    }

    /// Parses a scanned payload; `BAD_REQUEST` on `field` for anything malformed.
    public init(parsing text: String, field: String = "qrPayload") throws(FamilySyncError) {
        guard text.utf8.count <= 2048, let components = URLComponents(string: text), components.scheme == "familysync", components.host == "sign-in" else {
            throw .badRequest("The QR payload is not a familysync://sign-in link.", field: field)
        }
        var values: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard values[item.name] == nil else { throw .badRequest("The QR payload repeats '\(item.name)'.", field: field) }
            values[item.name] = item.value ?? ""
        }
        guard values["v"] == "1" else { throw .badRequest("The QR payload's version is not 1.", field: field) }
        guard let server = values["s"], !server.isEmpty, let code = values["c"].flatMap(SignInCode.init(parsing:)) else {
            throw .badRequest("The QR payload lacks s or c.", field: field)
        }
        self.init(serverURL: server, code: code)
    }
}
