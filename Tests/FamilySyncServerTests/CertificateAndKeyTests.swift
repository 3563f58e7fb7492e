import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Testing

@testable import FamilySyncServer

/// What `serve --tls-certificate --tls-key` refuses to start with, and what a reload refuses to
/// serve: each with one line naming the file and its option.
@Suite struct CertificateAndKeyTests {
    /// A pair, and a way to spoil it.
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var spoil: @Sendable (TestTLS.Files) throws -> Void
        var reason: String
    }

    static let cases: [Case] = [
        Case(description: "a missing certificate", spoil: { try FileManager.default.removeItem(atPath: $0.certificateFile) }, reason: "(--tls-certificate) does not exist"),
        Case(description: "a missing key", spoil: { try FileManager.default.removeItem(atPath: $0.keyFile) }, reason: "(--tls-key) does not exist"),
        Case(description: "a directory for the certificate", spoil: {
            try FileManager.default.removeItem(atPath: $0.certificateFile)
            try FileManager.default.createDirectory(atPath: $0.certificateFile, withIntermediateDirectories: false)
        }, reason: "(--tls-certificate) is a directory"),
        Case(description: "a key every user may read", spoil: { chmod($0.keyFile, 0o644) }, reason: "(--tls-key) may be read or changed by other users (mode 644); chmod 600 it"),
        Case(description: "a key the group may change", spoil: { chmod($0.keyFile, 0o660) }, reason: "(--tls-key) may be read or changed by other users (mode 660)"),
        Case(description: "another pair's key", spoil: { files in
            let other = try TestTLS.makeFiles()
            try Data(contentsOf: URL(fileURLWithPath: other.keyFile)).write(to: URL(fileURLWithPath: files.keyFile))
        }, reason: "(--tls-key) is not the key of the certificate in"),
        Case(description: "an expired certificate", spoil: { files in
            _ = try files.renew(days: 1, now: Date().addingTimeInterval(-3 * 86_400))
        }, reason: "(--tls-certificate) holds a certificate that expired on"),
        Case(description: "a certificate not valid yet", spoil: { files in
            _ = try files.renew(days: 30, now: Date().addingTimeInterval(2 * 86_400))
        }, reason: "(--tls-certificate) holds a certificate that is not valid until"),
        Case(description: "a key file for the certificate", spoil: { files in
            try Data(contentsOf: URL(fileURLWithPath: files.keyFile)).write(to: URL(fileURLWithPath: files.certificateFile))
        }, reason: "(--tls-certificate) holds no PEM certificate"),
        Case(description: "a certificate for the key", spoil: { files in
            try files.certificatePEM.write(toFile: files.keyFile, atomically: false, encoding: .utf8)
        }, reason: "(--tls-key) holds no PEM private key this server reads"),
        Case(description: "a certificate that is not one", spoil: { files in
            try "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n".write(toFile: files.certificateFile, atomically: false, encoding: .utf8)
        }, reason: "(--tls-certificate) holds a PEM certificate that cannot be read"),
    ]

    @Test(arguments: cases)
    func aPairThatCannotBeServedIsRefusedWithOneLine(_ spoiled: Case) throws {
        let files = try TestTLS.makeFiles()
        try spoiled.spoil(files)
        do {
            _ = try CertificateAndKey(certificateFile: files.certificateFile, keyFile: files.keyFile)
            Issue.record("\(spoiled) was accepted")
        } catch {
            #expect(error.description.contains(spoiled.reason), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func aGoodPairIsServedWithItsChainAndPin() throws {
        let files = try TestTLS.makeFiles()
        let pair = try CertificateAndKey(certificateFile: files.certificateFile, keyFile: files.keyFile)
        #expect(pair.chain.count == 1)
        #expect(pair.publicKeyPin.count == 32)
        #expect(Data(base64Encoded: pair.publicKeyPinBase64)?.count == 32)
        // The key's mode 640 is PostgreSQL's for a root-owned key: accepted.
        chmod(files.keyFile, 0o640)
        #expect(try CertificateAndKey(certificateFile: files.certificateFile, keyFile: files.keyFile).publicKeyPin == pair.publicKeyPin)
    }

    /// `familysync tls self-signed`'s input: names and addresses, and its days.
    @Test(arguments: [
        ([String](), 30, "name at least one host (--host)"),
        (["bad host"], 30, "'bad host' is not a host name or an IP address"),
        (["-leading.example"], 30, "'-leading.example' is not a host name or an IP address"),
        (["localhost"], 0, "days must be a whole number from 1 to 397, not '0'"),
        (["localhost"], 398, "days must be a whole number from 1 to 397, not '398'"),
    ])
    func aSelfSignedCertificateNeedsHostsAndDays(_ hosts: [String], _ days: Int, _ reason: String) {
        #expect(throws: SelfSignedCertificateError.self) { try SelfSignedCertificate(hosts: hosts, days: days) }
        do { _ = try SelfSignedCertificate(hosts: hosts, days: days) } catch { #expect("\(error)" == reason) }
    }

    @Test func aSelfSignedCertificateNamesEveryHost() async throws {
        let files = try TestTLS.makeFiles()
        let pair = try SelfSignedCertificate(hosts: ["sync.example.com", "*.home.arpa", "192.168.1.20", "::1"])
        try pair.certificatePEM.write(toFile: files.certificateFile, atomically: true, encoding: .utf8)
        let text = try await runProgram("/usr/bin/openssl", ["x509", "-noout", "-ext", "subjectAltName", "-in", files.certificateFile]).output
        for name in ["DNS:sync.example.com", "DNS:*.home.arpa", "IP Address:192.168.1.20", "IP Address:0:0:0:0:0:0:0:1"] {
            #expect(text.contains(name), "\(text)")
        }
    }
}
