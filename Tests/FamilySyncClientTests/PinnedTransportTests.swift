import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Synchronization
import Testing

/// Pairing under pins (PROTOCOL §3.2): the QR payload names the server's key, the SDK accepts
/// exactly the keys pinned, and a key announced before it is served is taken on the way.
@Suite struct PinnedTransportTests {
    /// A server of its own pair (tests switch its files), pinned, with `next` announced.
    static func pinned(_ files: TestTLS.Files, next: TestTLS.Files? = nil) throws -> ServerConfiguration {
        var configuration = ServerConfiguration.forTests
        let served = try TestTLS.served(files)
        configuration.tls = served
        configuration.keyPinning = KeyPinning(served: served, next: try next.map { KeyPin(digest: try CertificateAndKey.nextKeyPin(certificateFile: $0.certificateFile))! })
        return configuration
    }

    static func pin(of files: TestTLS.Files) throws -> KeyPin {
        KeyPin(digest: try CertificateAndKey(certificateFile: files.certificateFile, keyFile: files.keyFile).publicKeyPin)!
    }

    /// The QR payload carries the served key's pin and the next's, and every answer names them.
    @Test func thePayloadAndEveryAnswerNameTheKeys() async throws {
        let files = TestTLS.shared, next = try TestTLS.makeFiles()
        try await withTestServer(configuration: try Self.pinned(files, next: next)) { server in
            let parent = try await server.createFamily()
            let invitation = try await server.createPairing(by: parent)
            let payload = try QRPayload(parsing: invitation.qrPayload)
            #expect(payload.keyPins == [try Self.pin(of: files), try Self.pin(of: next)])
            let reply = try await server.send(.get, "/health/live")
            #expect(reply.headers[.init("FamilySync-Key-Pins")!] == KeyPins.text(payload.keyPins))
        }
        // Without pinning, neither.
        var plain = ServerConfiguration.forTests
        plain.tls = try TestTLS.served()
        try await withTestServer(configuration: plain) { server in
            let parent = try await server.createFamily()
            #expect(try QRPayload(parsing: try await server.createPairing(by: parent).qrPayload).keyPins.isEmpty)
            #expect(try await server.send(.get, "/health/live").headers[.init("FamilySync-Key-Pins")!] == nil)
        }
    }

    /// A device pinned to the served key pairs and works; one pinned to another key sends
    /// nothing: the family it would have made does not exist.
    @Test func onlyAPinnedKeyIsAccepted() async throws {
        let files = TestTLS.shared, other = try TestTLS.makeFiles()
        try await withTestServer(configuration: try Self.pinned(files)) { server in
            let url = URL(string: server.baseURL)!
            let good = PinnedHTTPClientTransport(keys: PinnedServerKeys([try Self.pin(of: files)]))
            let bad = PinnedHTTPClientTransport(keys: PinnedServerKeys([try Self.pin(of: other)]))
            do {
                let made = try await FamilySyncClient(serverURL: url, transport: good).createFamily(Self.registration)
                #expect(made.device.role == .parent)
                let before = try await server.fingerprint()
                do {
                    _ = try await FamilySyncClient(serverURL: url, transport: bad).createFamily(Self.registration)
                    Issue.record("a server with a key not pinned was answered")
                } catch let error as FamilySyncError {
                    #expect(error.reason.contains("is not one this device pinned"), "\(error)")
                }
                #expect(try await server.fingerprint() == before)
            } catch {
                try await good.shutdown()
                try await bad.shutdown()
                throw error
            }
            try await good.shutdown()
            try await bad.shutdown()
        }
    }

    /// The operator announces a next key, the device takes it from an answer, the files are
    /// switched to it: the device goes on without a new pairing, and keeps only the new key.
    /// A pair with a key never announced is refused by the server.
    @Test func aKeyAnnouncedBeforeItIsServedIsTakenOnTheWay() async throws {
        let files = try TestTLS.makeFiles(), next = try TestTLS.makeFiles()
        var pinned = try Self.pinned(files, next: next)
        // Connections end soon when idle: the device's next one meets the new certificate.
        pinned.idleTimeout = .seconds(1)
        let configuration = pinned
        let first = try Self.pin(of: files), second = try Self.pin(of: next)
        try await withTestServer(configuration: configuration) { server in
            let changes = Mutex<[[KeyPin]]>([])
            let keys = PinnedServerKeys([first]) { pins in changes.withLock { $0.append(pins) } }
            let transport = PinnedHTTPClientTransport(keys: keys)
            do {
                let client = FamilySyncClient(serverURL: URL(string: server.baseURL)!, transport: transport)
                let made = try await client.createFamily(Self.registration)
                #expect(keys.pins == [first, second])
                let device = client.authenticated(as: made.credential)

                // A key never announced is refused, and the served one kept.
                let stranger = try TestTLS.makeFiles()
                try TestTLS.switchFiles(of: files, to: stranger)
                guard case .refused(let reason) = configuration.tls!.reloadIfChanged() else { throw TestFailure("a pair with an unannounced key was served") }
                #expect(reason.contains("--tls-next-certificate"), "\(reason)")
                #expect(try await device.me().id == made.device.id)

                // The announced key: served, and the device follows.
                try TestTLS.switchFiles(of: files, to: next)
                #expect(configuration.tls!.reloadIfChanged() == .served)
                #expect(try await device.me().id == made.device.id)
                #expect(keys.pins == [second])
                try await TCPConnections.waitUntil(toPort: server.port, count: 0, within: .seconds(30))
                #expect(try await device.me().id == made.device.id)
                #expect(changes.withLock { $0 } == [[first, second], [second]])
            } catch {
                try await transport.shutdown()
                throw error
            }
            try await transport.shutdown()
        }
    }

    static let registration = DeviceRegistration(name: "Mom's iPhone", platform: .ios, timeZone: "America/Chicago")
}
