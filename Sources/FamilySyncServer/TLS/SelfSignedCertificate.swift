import Crypto
import Foundation
import NIOCore
import SwiftASN1
import X509

/// A P-256 key and a certificate it signs itself, for a developer's first HTTPS run
/// (`familysync tls self-signed`) and the tests: its own trust root (so `curl --cacert` and the
/// SDK's trust of one certificate accept it), for the names and addresses given, server
/// authentication only, valid from an hour ago for `days` (397 at most: what Apple's platforms
/// accept of a TLS server certificate).
package struct SelfSignedCertificate: Sendable {
    package let certificatePEM: String
    package let keyPEM: String

    package static let maximumDays = 397

    package init(hosts: [String], days: Int = maximumDays, now: Date = Date(), key: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) throws {
        guard let first = hosts.first else { throw SelfSignedCertificateError("name at least one host (--host)") }
        guard (1...Self.maximumDays).contains(days) else { throw SelfSignedCertificateError("days must be a whole number from 1 to \(Self.maximumDays), not '\(days)'") }
        let names = try hosts.map { host -> GeneralName in
            if let address = try? SocketAddress(ipAddress: host, port: 0) {
                switch address {
                case .v4(let v4): return .ipAddress(ASN1OctetString(contentBytes: withUnsafeBytes(of: v4.address.sin_addr) { ArraySlice($0) }))
                case .v6(let v6): return .ipAddress(ASN1OctetString(contentBytes: withUnsafeBytes(of: v6.address.sin6_addr) { ArraySlice($0) }))
                case .unixDomainSocket: break
                }
            }
            guard Self.isHostName(host) else { throw SelfSignedCertificateError("'\(host)' is not a host name or an IP address") }
            return .dnsName(host)
        }
        let name = try DistinguishedName { CommonName(first) }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(TimeInterval(days) * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
            },
            issuerPrivateKey: .init(key)
        )
        certificatePEM = try certificate.serializeAsPEM().pemString + "\n"
        keyPEM = key.pemRepresentation + "\n"
    }

    /// Letters, digits, hyphens and dots, with a leading `*.` allowed: what a certificate names.
    static func isHostName(_ host: String) -> Bool {
        let labels = (host.hasPrefix("*.") ? String(host.dropFirst(2)) : host).split(separator: ".", omittingEmptySubsequences: false)
        return !labels.isEmpty && host.utf8.count <= 253 && labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" }
        }
    }
}

package struct SelfSignedCertificateError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
