import AsyncHTTPClient
import FamilySyncServer
import Foundation
import NIOSSL

/// HTTPS for the harnesses: a self-signed pair for 127.0.0.1 in a directory, which the bench
/// server serves (`tls=<directory>`, as `serve --tls-certificate --tls-key`), and clients that
/// trust it and speak HTTP/2 by ALPN.
struct BenchTLS {
    let directory: String
    let certificatePEM: String

    var certificateFile: String { directory + "/server.crt" }
    var keyFile: String { directory + "/server.key" }

    static func make(in directory: String) throws -> BenchTLS {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let pair = try SelfSignedCertificate(hosts: ["127.0.0.1", "localhost"], days: 30)
        let tls = BenchTLS(directory: directory, certificatePEM: pair.certificatePEM)
        guard FileManager.default.createFile(atPath: tls.keyFile, contents: Data(pair.keyPEM.utf8), attributes: [.posixPermissions: 0o600]),
            FileManager.default.createFile(atPath: tls.certificateFile, contents: Data(pair.certificatePEM.utf8))
        else { throw BenchFailure("the bench's TLS pair could not be written in \(directory)") }
        return tls
    }

    /// A client configuration that trusts the pair, HTTP/2 when the server offers it.
    func clientConfiguration(_ base: HTTPClient.Configuration) throws -> HTTPClient.Configuration {
        var configuration = base
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8)))
        configuration.tlsConfiguration = tls
        configuration.httpVersion = .automatic
        return configuration
    }
}
