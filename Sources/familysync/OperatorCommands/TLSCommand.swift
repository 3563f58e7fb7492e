import ArgumentParser
import FamilySyncServer
import Foundation

/// Certificates for `serve --tls-certificate --tls-key`.
struct TLSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tls",
        abstract: "Certificates for serving HTTPS.",
        subcommands: [SelfSigned.self]
    )

    struct SelfSigned: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "self-signed",
            abstract: "Write a new P-256 key and a certificate it signs itself, for trying HTTPS: pass them to serve with --tls-certificate and --tls-key, and the certificate to clients (curl --cacert, a test device's trust settings)."
        )

        @Option(name: .customLong("host"), help: "A name or IP address devices reach the server at; repeat for more (the first is the certificate's name).")
        var hosts: [String] = []

        @Option(help: "Where the certificate is written.", completion: .file())
        var certificate = "familysync.crt"

        @Option(help: "Where the key is written (mode 600).", completion: .file())
        var key = "familysync.key"

        @Option(help: "Days the certificate is valid, 1 to \(SelfSignedCertificate.maximumDays).")
        var days = SelfSignedCertificate.maximumDays

        func run() async throws {
            let pair: SelfSignedCertificate
            do {
                pair = try SelfSignedCertificate(hosts: hosts, days: days)
            } catch let error as SelfSignedCertificateError {
                throw OperatorError.configuration(error.description)
            }
            for path in [certificate, key] where FileManager.default.fileExists(atPath: path) {
                throw OperatorError.configuration("\(path) exists already; remove it or name another file")
            }
            try write(pair.keyPEM, to: key, mode: 0o600)
            try write(pair.certificatePEM, to: certificate, mode: 0o644)
            print("wrote \(certificate) and \(key) for \(hosts.joined(separator: ", ")), valid \(days) days")
        }

        /// Created with its mode, so the key is never readable by others, not even for a moment.
        private func write(_ text: String, to path: String, mode: mode_t) throws {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, mode)
            guard descriptor >= 0 else { throw OperatorError.configuration("\(path) cannot be written: \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            let bytes = Array(text.utf8)
            guard bytes.withUnsafeBytes({ Foundation.write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
                throw OperatorError.runtime("\(path) could not be written whole: \(String(cString: strerror(errno)))")
            }
        }
    }
}
