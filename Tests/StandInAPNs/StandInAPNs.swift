import Crypto
import FamilySyncTestSupport
import Foundation
import JWTKit
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import SwiftASN1
import Synchronization
import X509

/// Apple's push provider API (`POST /3/device/<token>` over HTTP/2 and TLS) on 127.0.0.1, for
/// tests of a push sender. It checks each request as APNs does (path, headers, provider token,
/// payload), records it, and answers as scripted per token. A test trusts `certificatePEM`,
/// sends to `baseURL`, and calls `shutdown()` at the end.
public final class StandInAPNs: Sendable {
    /// A scripted answer to a request that passes the checks.
    public enum Answer: Sendable, Equatable {
        case ok
        case badDeviceToken
        case unregistered
        case tooManyRequests
        case unavailable
        case internalError
    }

    /// One request as it arrived, with the answer it got.
    public struct Delivery: Sendable {
        public let method: String
        public let path: String
        /// The device token in the path, "" when the path names none.
        public let token: String
        /// Every header but the pseudo-headers, names lowercased; repeated ones joined by ",".
        public let headers: [String: String]
        public let body: Data
        /// The body as JSON, nil when it is not JSON.
        public let payload: JSON?
        /// The provider token after "bearer ", verified or not.
        public let jwt: String?
        /// The provider token's `iat`, read even when the token was refused.
        public let issuedAt: Date?
        public let status: Int
        public let reason: String?
        /// Refused by the checks rather than by a scripted answer.
        let isRejection: Bool

        public func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
            try JSONDecoder().decode(Value.self, from: body)
        }
    }

    /// A JSON value, so that a delivery's payload stays Sendable and comparable.
    public enum JSON: Sendable, Equatable, Decodable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSON])
        case object([String: JSON])

        public subscript(key: String) -> JSON? {
            if case .object(let members) = self { members[key] } else { nil }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            // Bool first, so that `true` stays a Bool wherever a decoder would also read it as a number.
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([JSON].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: JSON].self))
            }
        }
    }

    public let port: Int
    public var baseURL: String { "https://localhost:\(port)" }
    /// The self-signed certificate the server presents: the one trust root a client needs.
    public let certificatePEM: String

    let teamID: String
    let keyID: String
    let topic: String
    let now: @Sendable () -> Date
    let keys: JWTKeyCollection
    private let state = Mutex(State())

    private struct State {
        var deliveries: [Delivery] = []
        var scripts: [String: [Answer]] = [:]
        var waiters: [Int: Waiter] = [:]
        var lastWaiterID = 0
        var serving: Task<Void, Never>?
        var isShutDown = false
    }

    private struct Waiter {
        let satisfied: @Sendable ([Delivery]) -> [Delivery]?
        let continuation: CheckedContinuation<[Delivery], any Error>
    }

    /// `now` is the clock the provider token's `iat` is judged by; the certificate uses real time.
    public static func start(
        teamID: String, keyID: String, publicKey: P256.Signing.PublicKey, topic: String, now: @escaping @Sendable () -> Date = Date.init
    ) async throws -> StandInAPNs {
        let serverKey = P256.Signing.PrivateKey()
        let certificatePEM = try selfSignedCertificate(for: serverKey).serializeAsPEM().pemString
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem))
        )
        // APNs speaks HTTP/2 only.
        tls.applicationProtocols = ["h2"]
        let tlsContext = try NIOSSLContext(configuration: tls)

        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PublicKey(backing: publicKey), kid: JWKIdentifier(string: keyID))

        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tlsContext))
                    let streams = try channel.pipeline.syncOperations.configureAsyncHTTP2Pipeline(mode: .server) { stream in
                        stream.eventLoop.makeCompletedFuture { try RequestStream(wrappingChannelSynchronously: stream) }
                    }
                    return Connection(channel: channel, streams: streams)
                }
            }
        guard let port = server.channel.localAddress?.port else {
            try? await server.channel.close()
            throw TestFailure("StandInAPNs: the listening socket has no port")
        }
        let apns = StandInAPNs(port: port, certificatePEM: certificatePEM, teamID: teamID, keyID: keyID, topic: topic, now: now, keys: keys)
        apns.state.withLock { $0.serving = Task { await apns.serve(server) } }
        return apns
    }

    private init(
        port: Int, certificatePEM: String, teamID: String, keyID: String, topic: String, now: @escaping @Sendable () -> Date, keys: JWTKeyCollection
    ) {
        self.port = port
        self.certificatePEM = certificatePEM
        self.teamID = teamID
        self.keyID = keyID
        self.topic = topic
        self.now = now
        self.keys = keys
    }

    /// Stops listening, drops open connections, and fails any wait still pending.
    public func shutdown() async throws {
        let (serving, waiters) = state.withLock { state in
            state.isShutDown = true
            defer { state.waiters = [:] }
            return (state.serving, Array(state.waiters.values))
        }
        for waiter in waiters { waiter.continuation.resume(throwing: TestFailure("StandInAPNs shut down while a test waited for deliveries")) }
        serving?.cancel()
        await serving?.value
    }

    // MARK: What a test reads and scripts

    /// Every request so far, in arrival order.
    public var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    /// The requests the checks refused (not those a scripted answer refused).
    public var rejections: [Delivery] { deliveries.filter(\.isRejection) }

    /// Queues answers for `token`, used one per request that passes the checks; once they run
    /// out, such requests get 200.
    public func answer(_ token: String, with answers: [Answer]) {
        state.withLock { $0.scripts[token, default: []].append(contentsOf: answers) }
    }

    /// Returns every delivery once at least `count` have been recorded. The wait is a hang bound,
    /// not a pace: it returns as the deliveries come, and a busy machine's can take seconds.
    public func waitForDeliveries(count: Int, timeout: Duration = .seconds(60)) async throws -> [Delivery] {
        try await wait(for: "\(count) deliveries", timeout: timeout) { all in all.count >= count ? all : nil }
    }

    /// Returns the deliveries to `token` once at least `count` have been recorded.
    public func waitForDeliveries(to token: String, count: Int, timeout: Duration = .seconds(60)) async throws -> [Delivery] {
        try await wait(for: "\(count) deliveries to \(token)", timeout: timeout) { all in
            let mine = all.filter { $0.token == token }
            return mine.count >= count ? mine : nil
        }
    }

    private func wait(
        for what: String, timeout: Duration, _ satisfied: @escaping @Sendable ([Delivery]) -> [Delivery]?
    ) async throws -> [Delivery] {
        try await OpenWaits.during("StandInAPNs: \(what)", limit: timeout) {
            try await withThrowingTaskGroup(of: [Delivery].self) { group in
                group.addTask { try await self.recorded(satisfying: satisfied) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    let seen = self.deliveries.map { "\($0.method) \($0.path) → \($0.status) \($0.reason ?? "")" }
                    throw TestFailure("StandInAPNs: waited \(timeout) for \(what); \(seen.count) recorded: \(seen)")
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        }
    }

    /// Suspends until `satisfied` accepts the deliveries; `record` resumes it.
    private func recorded(satisfying satisfied: @escaping @Sendable ([Delivery]) -> [Delivery]?) async throws -> [Delivery] {
        let id = state.withLock { state in
            state.lastWaiterID += 1
            return state.lastWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let settled: Result<[Delivery], any Error>? = state.withLock { state in
                    if let ready = satisfied(state.deliveries) { return .success(ready) }
                    // Checked under the lock so that a cancellation either sees the waiter or is seen here.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.isShutDown { return .failure(TestFailure("StandInAPNs is shut down")) }
                    state.waiters[id] = Waiter(satisfied: satisfied, continuation: continuation)
                    return nil
                }
                if let settled { continuation.resume(with: settled) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    // MARK: Serving

    private typealias RequestStream = NIOAsyncChannel<HTTP2Frame.FramePayload, HTTP2Frame.FramePayload>

    private struct Connection: Sendable {
        let channel: any Channel
        let streams: NIOHTTP2Handler.AsyncStreamMultiplexer<RequestStream>
    }

    /// Cancelling the task running this ends every loop below, which closes every channel.
    private func serve(_ server: NIOAsyncChannel<Connection, Never>) async {
        await withDiscardingTaskGroup { group in
            try? await server.executeThenClose { connections in
                for try await connection in connections {
                    group.addTask { await self.serve(connection) }
                }
            }
        }
    }

    private func serve(_ connection: Connection) async {
        await withDiscardingTaskGroup { group in
            // A failed handshake or a broken connection ends the loop with an error: only that connection goes.
            do {
                for try await stream in connection.streams.inbound {
                    group.addTask { await self.serve(stream) }
                }
            } catch {}
            connection.channel.close(promise: nil)
        }
    }

    private func serve(_ stream: RequestStream) async {
        try? await stream.executeThenClose { inbound, outbound in
            var head: HPACKHeaders?
            var body = ByteBuffer()
            // One iterator for reading and for waiting for the end: the sequence allows only one.
            var frames = inbound.makeAsyncIterator()
            reading: while let frame = try await frames.next() {
                switch frame {
                case .headers(let headers):
                    // The first HEADERS frame is the request's; later ones are trailers.
                    if head == nil { head = headers.headers }
                    if headers.endStream { break reading }
                case .data(let data):
                    if case .byteBuffer(var bytes) = data.data { body.writeBuffer(&bytes) }
                    if data.endStream { break reading }
                default:
                    continue
                }
            }
            guard let head else { return }
            let reply = await respond(to: head, body: Data(body.readableBytesView))
            try await outbound.write(.headers(.init(headers: reply.headers, endStream: reply.body == nil)))
            if let replyBody = reply.body {
                try await outbound.write(.data(.init(data: .byteBuffer(ByteBuffer(bytes: replyBody)), endStream: true)))
            }
            // The stream closes once both ends are done: waiting for that keeps the close from
            // racing the answer's last frame out.
            while try await frames.next() != nil {}
        }
    }

    // MARK: Checking and answering

    private struct Reply {
        var headers: HPACKHeaders
        var body: Data?
    }

    private func respond(to head: HPACKHeaders, body: Data) async -> Reply {
        var method = ""
        var path = ""
        var headers: [String: String] = [:]
        for (name, value, _) in head {
            switch name {
            case ":method": method = value
            case ":path": path = value
            case let pseudo where pseudo.hasPrefix(":"): continue
            default:
                let name = name.lowercased()
                headers[name] = headers[name].map { "\($0),\(value)" } ?? value
            }
        }
        let devicePrefix = "/3/device/"
        let token = path.hasPrefix(devicePrefix) ? String(path.dropFirst(devicePrefix.count)) : ""
        let jwt = headers["authorization"].flatMap { value -> String? in
            guard value.lowercased().hasPrefix("bearer ") else { return nil }
            return value.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        }
        let claims = jwt.flatMap { try? DefaultJWTParser().parse(Array($0.utf8), as: ProviderClaims.self) }
        let payload = try? JSONDecoder().decode(JSON.self, from: body)

        let refusal = await check(
            method: method, token: token, headers: headers, jwt: jwt, claims: claims, body: body, payload: payload
        )
        let apnsID = headers["apns-id"].flatMap(UUID.init(uuidString:))?.uuidString.lowercased() ?? UUID().uuidString.lowercased()
        let timestamp = Int((now().timeIntervalSince1970 * 1000).rounded())

        let (delivery, ready) = state.withLock { state -> (Delivery, [(Waiter, [Delivery])]) in
            var status = 200
            var reason: String?
            if let refusal {
                (status, reason) = refusal
            } else if let answer = state.scripts[token]?.first {
                state.scripts[token]?.removeFirst()
                (status, reason) = answer.reply
            }
            let delivery = Delivery(
                method: method, path: path, token: token, headers: headers, body: body, payload: payload, jwt: jwt,
                issuedAt: claims?.payload.iat?.value, status: status, reason: reason, isRejection: refusal != nil
            )
            state.deliveries.append(delivery)
            // Resumed outside the lock: a waiter's task may read the deliveries at once.
            var ready: [(Waiter, [Delivery])] = []
            for (id, waiter) in state.waiters {
                if let result = waiter.satisfied(state.deliveries) {
                    state.waiters[id] = nil
                    ready.append((waiter, result))
                }
            }
            return (delivery, ready)
        }
        for (waiter, result) in ready { waiter.continuation.resume(returning: result) }

        var replyHeaders: HPACKHeaders = [":status": String(delivery.status), "apns-id": apnsID]
        guard let reason = delivery.reason else { return Reply(headers: replyHeaders, body: nil) }
        // An Unregistered answer also says since when (ms since 1970) the token has been gone.
        let json = delivery.status == 410 ? #"{"reason":"\#(reason)","timestamp":\#(timestamp)}"# : #"{"reason":"\#(reason)"}"#
        replyHeaders.add(name: "content-type", value: "application/json")
        replyHeaders.add(name: "content-length", value: String(json.utf8.count))
        return Reply(headers: replyHeaders, body: Data(json.utf8))
    }
}
