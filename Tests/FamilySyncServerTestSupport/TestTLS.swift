import AsyncHTTPClient
import FamilySyncServer
import FamilySyncTestSupport
import Foundation
import Logging
import NIOSSL

/// HTTPS for the tests: self-signed pairs for localhost and 127.0.0.1 in files of their own, and
/// a client that trusts one of them (HTTP/2 by ALPN, as the SDK's).
public enum TestTLS {
    /// A pair's two files and the certificate's text.
    public struct Files: Sendable {
        public let directory: String
        public let certificate: String
        public let key: String
        public let certificatePEM: String

        public var certificateFile: String { directory + "/" + certificate }
        public var keyFile: String { directory + "/" + key }

        /// Writes a new pair over this one's files, as a renewal does (the key first).
        public func renew(days: Int = 30, now: Date = Date()) throws -> Files {
            let pair = try SelfSignedCertificate(hosts: ["localhost", "127.0.0.1"], days: days, now: now)
            try TestTLS.write(pair.keyPEM, to: keyFile, mode: 0o600)
            try TestTLS.write(pair.certificatePEM, to: certificateFile, mode: 0o644)
            return Files(directory: directory, certificate: certificate, key: key, certificatePEM: pair.certificatePEM)
        }
    }

    /// A new pair in a new directory.
    public static func makeFiles(days: Int = 30, now: Date = Date()) throws -> Files {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("familysync-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try Files(directory: directory, certificate: "server.crt", key: "server.key", certificatePEM: "").renew(days: days, now: now)
    }

    /// The pair most tests serve, made once a process.
    public static let shared: Files = try! makeFiles()

    /// What `serve --tls-certificate --tls-key` serves, from `files`.
    package static func served(_ files: Files = shared, checkEvery: Duration = .seconds(3600)) throws -> ServedCertificate {
        try ServedCertificate(certificateFile: files.certificateFile, keyFile: files.keyFile, checkEvery: checkEvery, logger: Logger(label: "test-tls"))
    }

    /// A client that trusts only `certificatePEM`; `http1Only` keeps it off HTTP/2.
    public static func client(trusting certificatePEM: String = shared.certificatePEM, http1Only: Bool = false) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8)))
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, timeout: .init(connect: .seconds(5), read: .seconds(90)))
        configuration.httpVersion = http1Only ? .http1Only : .automatic
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The test servers' HTTPS client, trusting `shared`.
    public static let https: HTTPClient = try! client()

    /// Writes `source`'s pair over `files`' paths, as an operator switching certificates does.
    public static func switchFiles(of files: Files, to source: Files) throws {
        try write(String(contentsOfFile: source.keyFile, encoding: .utf8), to: files.keyFile, mode: 0o600)
        try write(String(contentsOfFile: source.certificateFile, encoding: .utf8), to: files.certificateFile, mode: 0o644)
    }

    static func write(_ text: String, to path: String, mode: mode_t) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + ".new"))
        chmod(path + ".new", mode)
        // A rename, as certbot's symlink swap: a reader sees the old file or the new, never half.
        guard rename(path + ".new", path) == 0 else { throw TestFailure("\(path) not written: \(String(cString: strerror(errno)))") }
    }
}
