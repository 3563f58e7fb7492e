/// A `postgres://` URI split as libpq splits one (`conninfo_uri_parse_options`), each part
/// percent-decoded: `scheme://[user[:password]@][host][:port][/path][?name=value&…]`. Nothing
/// here says what a part means; `DatabaseURL.init(_:)` does.
///
/// Where this differs from libpq: the user information ends at the last `@` of the authority
/// (so an unencoded `@` in a password still works, as it did with `URLComponents`), and a
/// comma in the host or port (libpq's list of hosts) is refused.
struct PostgresURI {
    typealias ParseError = DatabaseURL.ParseError

    var user: String?
    var password: String?
    /// An IPv6 address without its brackets.
    var host: String?
    var port: String?
    /// What follows the authority's `/`, still encoded (so that `%2F` can be told from `/`);
    /// nil without one.
    var encodedPath: Substring?
    var parameters: [(name: String, value: String)]

    static let schemes = ["postgresql", "postgres"]
    /// libpq's failover list, not supported.
    static let hostList = ParseError(reason: "one host only: a list of hosts (host1,host2) is not supported")

    init(_ text: String) throws(ParseError) {
        guard let separator = text.firstRange(of: "://") else {
            throw ParseError(reason: "expected postgres://user:password@host:port/database")
        }
        let scheme = text[..<separator.lowerBound]
        guard Self.schemes.contains(String(scheme)) else {
            throw ParseError(reason: "scheme must be postgres:// or postgresql://, not \(scheme)://")
        }
        let rest = text[separator.upperBound...]
        let hierarchy = rest.prefix(while: { $0 != "?" })
        let query = rest.dropFirst(hierarchy.count + 1)
        let authority = hierarchy.prefix(while: { $0 != "/" })
        encodedPath = hierarchy.count > authority.count ? hierarchy.dropFirst(authority.count + 1) : nil

        var hostAndPort = authority
        if let at = authority.lastIndex(of: "@") {
            let userInformation = authority[..<at]
            hostAndPort = authority[authority.index(after: at)...]
            let userPart = userInformation.prefix(while: { $0 != ":" })
            user = try Self.decode(userPart, "the user name")
            if userPart.count < userInformation.count {
                password = try Self.decode(userInformation.dropFirst(userPart.count + 1), "the password")
            }
        }
        guard !hostAndPort.contains(",") else { throw Self.hostList }
        let portText: Substring?
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else {
                throw ParseError(reason: "an IPv6 host needs its closing ']' (postgres://user@[::1]:5432/database)")
            }
            host = try Self.decode(hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close], "the host")
            let after = hostAndPort[hostAndPort.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else {
                throw ParseError(reason: "expected ':port' after the IPv6 host's ']'")
            }
            portText = after.isEmpty ? nil : after.dropFirst()
        } else {
            let hostPart = hostAndPort.prefix(while: { $0 != ":" })
            host = try Self.decode(hostPart, "the host")
            portText = hostPart.count < hostAndPort.count ? hostAndPort.dropFirst(hostPart.count + 1) : nil
        }
        port = if let portText { try Self.decode(portText, "the port") } else { nil }

        parameters = []
        guard !query.isEmpty else { return }
        // libpq lets the query end with '&', but not hold an empty parameter.
        let items = query.split(separator: "&", omittingEmptySubsequences: false)
        for (offset, item) in items.enumerated() where !(item.isEmpty && offset == items.count - 1) {
            let parts = item.split(separator: "=", maxSplits: 2, omittingEmptySubsequences: false)
            let name = try Self.decode(parts[0], "a parameter's name") ?? ""
            guard parts.count == 2 else {
                if item.isEmpty { throw ParseError(reason: "an empty parameter ('&&' or '?&')") }
                if parts.count == 1 { throw ParseError(reason: "parameter '\(name)' has no '=' (write \(name)=value)") }
                throw ParseError(reason: "parameter '\(name)' has a second '=' (write it as %3D in the value)")
            }
            parameters.append((name, try Self.decode(parts[1], "parameter '\(name)'") ?? ""))
        }
    }

    /// libpq's percent-decoding: `%` and two hex digits, never `%00`; `+` is itself. Empty → nil.
    /// `part` names the part in errors, which never quote the text (it may be a password).
    static func decode(_ text: Substring, _ part: String) throws(ParseError) -> String? {
        guard !text.isEmpty else { return nil }
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw ParseError(reason: "\(part) has a '%' not followed by two hex digits")
            }
            guard high != 0 || low != 0 else { throw ParseError(reason: "\(part) holds %00, which is not allowed") }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw ParseError(reason: "\(part) is not UTF-8 once percent-decoded")
        }
        return decoded
    }

    /// Percent-encodes all but RFC 3986's unreserved characters and `kept`.
    static func encode(_ text: String, keeping kept: Set<UInt8> = []) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) || kept.contains(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
