import AsyncHTTPClient
import Crypto
import FamilySyncClient
import FamilySyncCore
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

/// The server keys a device paired under pins accepts (PROTOCOL §3.2): those of its QR payload,
/// then those each answer announces (`KeyPins.kept`). `onChange` is where an app keeps them
/// beside the device's credential.
public final class PinnedServerKeys: Sendable {
    private let held: Mutex<[KeyPin]>
    private let onChange: @Sendable ([KeyPin]) -> Void

    public init(_ pins: [KeyPin], onChange: @escaping @Sendable ([KeyPin]) -> Void = { _ in }) {
        held = Mutex(pins)
        self.onChange = onChange
    }

    public var pins: [KeyPin] { held.withLock { $0 } }

    /// Takes an answer's `FamilySync-Key-Pins`, which came over a connection a pinned key made.
    func take(announced: String?) {
        let changed: [KeyPin]? = held.withLock { pins in
            let kept = KeyPins.kept(held: pins, announced: announced)
            guard kept != pins else { return nil }
            pins = kept
            return kept
        }
        if let changed { onChange(changed) }
    }
}

/// AsyncHTTPClient held to pinned keys, for a server whose certificate is self-signed (§3.2).
/// AsyncHTTPClient has no hook for checking a server's key, so the key is checked on a TLS
/// connection of this transport's own (swift-nio-ssl's verification callback), and the
/// certificate that passed becomes the one root the client trusts for that server: a man in the
/// middle with any other certificate fails the client's own verification. When the server's
/// certificate changes (renewed, or switched to the announced next key), a failed handshake
/// makes the check run again, once.
public final class PinnedHTTPClientTransport: HTTPTransport, Sendable {
    public let keys: PinnedServerKeys
    /// Each server's client, trusting the certificate that passed the check.
    private let trusted = Mutex<[String: AsyncHTTPClientTransport]>([:])
    /// Clients replaced after a certificate changed (or made by two checks at once): requests may
    /// still be in flight on them, and they are shut down with this transport.
    private let retired = Mutex<[HTTPClient]>([])

    public init(keys: PinnedServerKeys) {
        self.keys = keys
    }

    /// Shuts down the clients this transport made (AsyncHTTPClient asks it before they go).
    public func shutdown() async throws {
        let clients = trusted.withLock { made in
            defer { made = [:] }
            return made.values.map(\.client)
        } + retired.withLock { clients in
            defer { clients = [] }
            return clients
        }
        for client in clients { try await client.shutdown() }
    }

    public func exchange(_ request: TransportRequest) async throws(TransportFailure) -> TransportResponse {
        let server = try Self.server(of: request.url)
        var checkedNow = false
        var current = trusted.withLock { $0[server.name] }
        if current == nil {
            current = try await check(server)
            checkedNow = true
        }
        while true {
            do {
                let response = try await current!.send(request)
                keys.take(announced: response.headers["familysync-key-pins"])
                return response
            } catch is NIOSSLError where !checkedNow {
                // The certificate the client trusts is no longer served: check the new one.
                current = try await check(server)
                checkedNow = true
            } catch {
                throw TransportFailure(AsyncHTTPClientTransport.kind(of: error), "\(error)")
            }
        }
    }

    public func download(_ request: TransportRequest, to file: URL) async throws(TransportFailure) -> TransportResponse {
        let server = try Self.server(of: request.url)
        let made: AsyncHTTPClientTransport
        if let current = trusted.withLock({ $0[server.name] }) {
            made = current
        } else {
            made = try await check(server)
        }
        return try await made.download(request, to: file)
    }

    private struct Server {
        let host: String
        let port: Int
        var name: String { "\(host):\(port)" }
    }

    private static func server(of url: URL) throws(TransportFailure) -> Server {
        guard url.scheme?.lowercased() == "https", let host = url.host else {
            throw TransportFailure(.nothingSent, "a server whose key is pinned is reached over https only, not \(url.absoluteString)")
        }
        return Server(host: host, port: url.port ?? 443)
    }

    /// Checks the key `server` serves against the pins, and trusts that certificate from now on.
    private func check(_ server: Server) async throws(TransportFailure) -> AsyncHTTPClientTransport {
        let certificate = try await Self.servedCertificate(server, pins: keys.pins)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([certificate])
        // The key is the server's identity here, whatever names its certificate lists.
        tls.certificateVerification = .noHostnameVerification
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, timeout: .init(connect: .seconds(10)))
        configuration.connectionPool.retryConnectionEstablishment = false
        let made = AsyncHTTPClientTransport(client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration))
        let replaced = trusted.withLock { table in
            defer { table[server.name] = made }
            return table[server.name]
        }
        if let replaced { retired.withLock { $0.append(replaced.client) } }
        return made
    }

    /// The certificate `server` presents, if its key is one of `pins`.
    private static func servedCertificate(_ server: Server, pins: [KeyPin]) async throws(TransportFailure) -> NIOSSLCertificate {
        let seen = Mutex<NIOSSLCertificate?>(nil)
        let offered = Mutex<KeyPin?>(nil)
        do {
            let context = try NIOSSLContext(configuration: .makeClientConfiguration())
            let handshake = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .connect(host: server.host, port: server.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let promise = channel.eventLoop.makePromise(of: Void.self)
                        let verify: NIOSSLCustomVerificationCallback = { certificates, verdict in
                            guard let leaf = certificates.first, let spki = try? leaf.extractPublicKey().toSPKIBytes() else {
                                verdict.succeed(.failed)
                                return
                            }
                            let key = KeyPin(digest: Array(SHA256.hash(data: spki)))!
                            offered.withLock { $0 = key }
                            guard pins.contains(key) else {
                                verdict.succeed(.failed)
                                return
                            }
                            seen.withLock { $0 = leaf }
                            verdict.succeed(.certificateVerified)
                        }
                        let name = server.host.contains(":") || server.host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : server.host
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: name, customVerificationCallback: verify))
                        try channel.pipeline.syncOperations.addHandler(HandshakeOutcome(promise))
                        return (channel, promise.futureResult)
                    }
                }
            defer { handshake.0.close(promise: nil) }
            try await handshake.1.get()
        } catch {
            if let key = offered.withLock({ $0 }), seen.withLock({ $0 }) == nil {
                throw TransportFailure(.unreachable, "the server's key (\(key)) is not one this device pinned (\(KeyPins.text(pins))): refused")
            }
            throw TransportFailure(.unreachable, "the server's key could not be checked: \(error)")
        }
        guard let found = seen.withLock({ $0 }) else { throw TransportFailure(.unreachable, "the server's key could not be checked") }
        return found
    }
}

/// Fulfils its promise when the TLS handshake is done, fails it on an error or a close before.
private final class HandshakeOutcome: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let promise: EventLoopPromise<Void>
    private var done = false

    init(_ promise: EventLoopPromise<Void>) {
        self.promise = promise
    }

    private func finish(_ result: Result<Void, any Error>) {
        guard !done else { return }
        done = true
        promise.completeWith(result)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted? = event as? TLSUserEvent { finish(.success(())) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(error))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(ChannelError.ioOnClosedChannel))
        context.fireChannelInactive()
    }
}
