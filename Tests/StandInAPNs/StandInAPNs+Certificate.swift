import Crypto
import Foundation
import SwiftASN1
import X509

extension StandInAPNs {
    /// A self-signed P-256 certificate for localhost and 127.0.0.1, valid an hour back and a day ahead.
    static func selfSignedCertificate(for key: P256.Signing.PrivateKey) throws -> Certificate {
        let name = try DistinguishedName { CommonName("localhost") }
        let now = Date()
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                // Its own trust root, so it may sign certificates, itself included.
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(key)
        )
    }
}
