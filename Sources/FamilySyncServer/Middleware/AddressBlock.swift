/// Which addresses share one bucket of the per-address limits (PROTOCOL §14): an IPv6 client by
/// its /64, the block one subscriber is given (a host picks any of its 2⁶⁴ addresses freely, so
/// counting each would count nothing); an IPv4 client by its own address, since carriers put many
/// subscribers behind one; a loopback client as one, whatever its address (127.0.0.0/8 and ::1
/// are all the same machine). An IPv4 address written as IPv6 (`::ffff:192.0.2.1`) is that IPv4
/// address.
enum AddressBlock {
    static func key(of address: String?) -> String {
        guard let address, let bytes = TrustedProxies.bytes(of: address) else { return address ?? "unknown" }
        if bytes.count == 4 {
            return bytes[0] == 127 ? "loopback" : address
        }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return "loopback" }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12] == 127 ? "loopback" : bytes[12...].map(String.init).joined(separator: ".")
        }
        var text = ""
        for pair in stride(from: 0, to: 8, by: 2) {
            text += String(UInt16(bytes[pair]) << 8 | UInt16(bytes[pair + 1]), radix: 16) + ":"
        }
        return text + ":/64"
    }
}
