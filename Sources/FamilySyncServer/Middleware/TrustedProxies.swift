import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The proxies whose `X-Forwarded-For` is believed (`--trusted-proxies`): addresses and CIDR
/// ranges, IPv4 or IPv6. Behind nginx every request comes from the proxy's address, so the
/// per-client limits would share one bucket among every client; the proxy says who the client
/// was, and only a proxy on this list is asked.
public struct TrustedProxies: Sendable, Equatable {
    struct Range: Sendable, Equatable {
        var network: [UInt8]
        var prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == network.count else { return false }
            var left = prefixLength
            for (a, n) in zip(address, network) {
                guard left > 0 else { return true }
                let bits = min(left, 8)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if a & mask != n & mask { return false }
                left -= bits
            }
            return true
        }
    }

    let ranges: [Range]

    public static let none = TrustedProxies(ranges: [])

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { "trusted proxies: \(reason)" }
    }

    init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// `127.0.0.1,10.0.0.0/8,::1`; throws the first entry that is not an address or range.
    public init(parsing list: String) throws(ParseError) {
        var ranges: [Range] = []
        for entry in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let address = Self.bytes(of: parts[0]) else { throw ParseError(reason: "'\(entry)' is not an IP address or CIDR range") }
            let bits = address.count * 8
            let prefix: Int
            if parts.count == 2 {
                guard let length = Int(parts[1]), (0...bits).contains(length) else {
                    throw ParseError(reason: "'\(entry)' has a prefix length that is not 0 to \(bits)")
                }
                prefix = length
            } else {
                prefix = bits
            }
            ranges.append(Range(network: address, prefixLength: prefix))
        }
        self.ranges = ranges
    }

    public func trusts(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The client behind `peer`: `peer` itself unless it is trusted; then the `X-Forwarded-For`
    /// hops read from the right (the nearest first), skipping trusted proxies, to the first that
    /// is not one. A hop that is not an address ends the walk at the proxy that wrote it.
    public func client(peer: String, forwardedFor headers: [String]) -> String {
        guard trusts(peer) else { return peer }
        let hops = headers.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            guard Self.bytes(of: hop) != nil else { return client }
            client = hop
            if !trusts(hop) { return hop }
        }
        return client
    }

    /// The address's bytes (4 for IPv4, 16 for IPv6), or nil.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
