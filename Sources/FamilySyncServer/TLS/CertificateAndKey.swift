import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The server's certificate chain and private key as read from the operator's two PEM files, checked
/// before anything is served with them: each file there, a regular file and readable; the key not
/// readable by every user (PostgreSQL's rule for its own key); the key the one of the chain's first
/// certificate; that certificate valid now.
package struct CertificateAndKey: Sendable {
    package let chain: [NIOSSLCertificate]
    package let key: NIOSSLPrivateKey
    /// SHA-256 of the first certificate's public key as DER SubjectPublicKeyInfo (RFC 7469's pin).
    package let publicKeyPin: [UInt8]
    package let notValidAfter: Date
    /// The first certificate signed by its own key, as `tls self-signed` writes one: no CA vouches
    /// for it, which is what pinning (§3.2) is for.
    package let isSelfSigned: Bool

    package init(certificateFile: String, keyFile: String, now: Date = Date()) throws(TLSFileError) {
        let certificateText = try Self.read(certificateFile, .certificate)
        let certificates: [Certificate]
        do {
            certificates = try PEMDocument.parseMultiple(pemString: certificateText)
                .filter { $0.discriminator == Certificate.defaultPEMDiscriminator }
                .map { try Certificate(pemDocument: $0) }
        } catch {
            throw TLSFileError(.certificate, certificateFile, "holds a PEM certificate that cannot be read (\(error))")
        }
        guard let leaf = certificates.first else { throw TLSFileError(.certificate, certificateFile, "holds no PEM certificate") }
        let keyText = try Self.read(keyFile, .key)
        let privateKey: Certificate.PrivateKey
        do {
            privateKey = try Certificate.PrivateKey(pemEncoded: keyText)
        } catch {
            throw TLSFileError(.key, keyFile, "holds no PEM private key this server reads (PKCS #8, SEC 1 or PKCS #1 RSA)")
        }
        guard privateKey.publicKey == leaf.publicKey else {
            throw TLSFileError(.key, keyFile, "is not the key of the certificate in \(certificateFile) (--tls-certificate)")
        }
        guard leaf.notValidAfter > now else {
            throw TLSFileError(.certificate, certificateFile, "holds a certificate that expired on \(leaf.notValidAfter.formatted(.iso8601))")
        }
        guard leaf.notValidBefore <= now else {
            throw TLSFileError(.certificate, certificateFile, "holds a certificate that is not valid until \(leaf.notValidBefore.formatted(.iso8601))")
        }
        do {
            chain = try certificates.map { try NIOSSLCertificate(bytes: $0.serializeAsPEM().derBytes, format: .der) }
            key = try NIOSSLPrivateKey(bytes: Array(keyText.utf8), format: .pem)
            publicKeyPin = try Self.pin(of: leaf)
        } catch {
            throw TLSFileError(.key, keyFile, "cannot be used with its certificate (\(error))")
        }
        notValidAfter = leaf.notValidAfter
        isSelfSigned = Self.isSelfSigned(leaf)
    }

    /// RFC 7469's pin: SHA-256 of the certificate's public key as DER SubjectPublicKeyInfo.
    static func pin(of certificate: Certificate) throws -> [UInt8] {
        Array(SHA256.hash(data: try certificate.publicKey.serializeAsPEM().derBytes))
    }

    static func isSelfSigned(_ certificate: Certificate) -> Bool {
        certificate.issuer == certificate.subject && certificate.publicKey.isValidSignature(certificate.signature, for: certificate)
    }

    /// The pin of the certificate in `file` (`--tls-next-certificate`): one to be served later,
    /// self-signed and not expired; its key is not read here.
    package static func nextKeyPin(certificateFile file: String, now: Date = Date()) throws(TLSFileError) -> [UInt8] {
        let text = try read(file, .nextCertificate)
        let leaf: Certificate
        do {
            guard let document = try PEMDocument.parseMultiple(pemString: text).first(where: { $0.discriminator == Certificate.defaultPEMDiscriminator }) else {
                throw TLSFileError(.nextCertificate, file, "holds no PEM certificate")
            }
            leaf = try Certificate(pemDocument: document)
        } catch let error as TLSFileError {
            throw error
        } catch {
            throw TLSFileError(.nextCertificate, file, "holds a PEM certificate that cannot be read (\(error))")
        }
        guard leaf.notValidAfter > now else {
            throw TLSFileError(.nextCertificate, file, "holds a certificate that expired on \(leaf.notValidAfter.formatted(.iso8601))")
        }
        guard isSelfSigned(leaf) else { throw TLSFileError(.nextCertificate, file, "holds a certificate a CA issued; pinning is for a self-signed one") }
        do {
            return try pin(of: leaf)
        } catch {
            throw TLSFileError(.nextCertificate, file, "holds a public key that cannot be written (\(error))")
        }
    }

    /// `publicKeyPin` as it is written in a QR payload and in headers: base64.
    package var publicKeyPinBase64: String { Data(publicKeyPin).base64EncodedString() }

    private static func read(_ path: String, _ file: TLSFileError.File) throws(TLSFileError) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw TLSFileError(file, path, errno == ENOENT ? "does not exist" : "cannot be read: \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw TLSFileError(file, path, status.st_mode & S_IFMT == S_IFDIR ? "is a directory" : "is not a regular file")
        }
        // As PostgreSQL asks of its own key: no access for every user, no writing by the group.
        if file == .key, status.st_mode & 0o037 != 0 {
            throw TLSFileError(file, path, "may be read or changed by other users (mode \(String(status.st_mode & 0o777, radix: 8))); chmod 600 it")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TLSFileError(file, path, "cannot be read: \(String(cString: strerror(errno)))")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw TLSFileError(file, path, "is not PEM text") }
        return text
    }
}

/// Why a certificate or key file cannot be served, naming the file and its option.
package struct TLSFileError: Error, CustomStringConvertible, Equatable {
    package enum File: Sendable { case certificate, key, nextCertificate }
    package let file: File
    package let path: String
    package let reason: String

    package init(_ file: File, _ path: String, _ reason: String) {
        self.file = file
        self.path = path
        self.reason = reason
    }

    package var description: String {
        switch file {
        case .certificate: "the TLS certificate file \(path) (--tls-certificate) \(reason)"
        case .key: "the TLS key file \(path) (--tls-key) \(reason)"
        case .nextCertificate: "the next TLS certificate file \(path) (--tls-next-certificate) \(reason)"
        }
    }
}
