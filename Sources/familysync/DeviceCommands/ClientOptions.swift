import ArgumentParser
import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncProtocol
import AsyncHTTPClient
import Foundation
import NIOSSL
import Synchronization

/// The options every client subcommand takes: which device to act as, and how to print.
struct ClientOptions: ParsableArguments {
    @Option(help: "The server's base URL. Env: FAMILYSYNC_SERVER. Default: the profile's server, else http://127.0.0.1:8080.")
    var server: String?

    @Option(help: "The profile (the device) to act as. Env: FAMILYSYNC_PROFILE. Default: default.")
    var profile: String?

    @Option(help: "The profile file. Env: FAMILYSYNC_PROFILES. Default: $XDG_CONFIG_HOME/familysync/profiles.json, else ~/.config/familysync/profiles.json.")
    var profileFile: String?

    @Option(help: "A PEM certificate to trust for the server besides the system's roots (one from familysync tls self-signed). Env: FAMILYSYNC_CA_CERTIFICATE.", completion: .file())
    var caCertificate: String?

    @Flag(help: "Print JSON for scripts instead of tables.")
    var json = false

    static let defaultServer = "http://127.0.0.1:8080"

    func context(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ClientContext {
        let name = profile ?? environment["FAMILYSYNC_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        try ProfileStore.validate(name: name)
        let file: String
        if let chosen = profileFile ?? environment["FAMILYSYNC_PROFILES"].flatMap({ $0.isEmpty ? nil : $0 }) {
            file = chosen
        } else if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty {
            file = config + "/familysync/profiles.json"
        } else {
            file = (environment["HOME"] ?? NSHomeDirectory()) + "/.config/familysync/profiles.json"
        }
        let serverText = server ?? environment["FAMILYSYNC_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
        let trusted = caCertificate ?? environment["FAMILYSYNC_CA_CERTIFICATE"].flatMap { $0.isEmpty ? nil : $0 }
        return ClientContext(
            profileName: name, profiles: ProfileStore(url: URL(fileURLWithPath: file)),
            serverOverride: try serverText.map(Self.serverURL), output: Output(json: json),
            transport: try trusted.map { try ClientContext.transport(trusting: $0) } ?? ClientContext.transport, trustsACertificate: trusted != nil
        )
    }

    static func serverURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil, url.query == nil else {
            throw OperatorError.configuration("the server must be an http:// or https:// URL, not '\(text)'")
        }
        return url
    }
}

/// What a client subcommand works with, resolved from `ClientOptions`.
struct ClientContext {
    /// The CLI runs SwiftNIO already (it is also the server): AsyncHTTPClient, which tells a
    /// request that never left from one that may have arrived (docs/sdk.md).
    static let transport = AsyncHTTPClientTransport.shared

    let profileName: String
    let profiles: ProfileStore
    let serverOverride: URL?
    let output: Output
    /// `transport`, or one that also trusts `--ca-certificate`.
    var transport: AsyncHTTPClientTransport = ClientContext.transport
    /// Whether `--ca-certificate` was given: it then decides the trust, pins or not.
    var trustsACertificate = false

    /// A transport that trusts the certificate in `file` besides the system's roots, made once a
    /// process and kept for its life (a client is shut down before it may go).
    static func transport(trusting file: String, checkingHostName: Bool = true) throws -> AsyncHTTPClientTransport {
        try trusting.withLock { made in
            if let transport = made[file] { return transport }
            let transport = try makeTransport(trusting: file, checkingHostName: checkingHostName)
            made[file] = transport
            return transport
        }
    }

    private static let trusting = Mutex<[String: AsyncHTTPClientTransport]>([:])

    private static func makeTransport(trusting file: String, checkingHostName: Bool) throws -> AsyncHTTPClientTransport {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(file)
        } catch {
            throw OperatorError.configuration("the CA certificate file \(file) (--ca-certificate) cannot be read as PEM certificates: \(error)")
        }
        guard !certificates.isEmpty else { throw OperatorError.configuration("the CA certificate file \(file) (--ca-certificate) holds no PEM certificate") }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.certificates(certificates)]
        if !checkingHostName { tls.certificateVerification = .noHostnameVerification }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, timeout: .init(connect: .seconds(10)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return AsyncHTTPClientTransport(client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration))
    }

    /// A client without a credential, for the calls that need none (creating a family, accepting a
    /// pairing); held to `keyPins` when a pairing's QR code pinned the server's keys.
    func anonymousClient(server: URL? = nil, keyPins: [KeyPin] = []) throws -> FamilySyncClient {
        let url = try server ?? serverOverride ?? ClientOptions.serverURL(ClientOptions.defaultServer)
        return FamilySyncClient(serverURL: url, transport: keyPins.isEmpty || trustsACertificate ? transport : Self.pinnedTransport(keyPins, profile: nil))
    }

    /// The profile's device and a client holding its credential.
    func device() throws -> (Profile, FamilySyncClient) {
        let profile = try profiles.profile(named: profileName)
        let server = try serverOverride ?? ClientOptions.serverURL(profile.server)
        let pins = (profile.keyPins ?? []).compactMap { KeyPin($0) }
        let chosen: any HTTPTransport = pins.isEmpty || trustsACertificate ? transport : Self.pinnedTransport(pins, profile: (profiles, profileName))
        return (profile, FamilySyncClient(serverURL: server, credential: profile.credential, transport: chosen))
    }

    /// A transport held to `pins`, made once a process (its clients are never shut down before
    /// it ends). The keys the server announces are written to the profile as they change.
    static func pinnedTransport(_ pins: [KeyPin], profile: (store: ProfileStore, name: String)?) -> PinnedHTTPClientTransport {
        pinned.withLock { made in
            let key = KeyPins.text(pins) + "|" + (profile.map { $0.store.url.path + "#" + $0.name } ?? "")
            if let transport = made[key] { return transport }
            let transport = PinnedHTTPClientTransport(keys: PinnedServerKeys(pins) { pins in
                guard let profile, var saved = try? profile.store.profile(named: profile.name) else { return }
                saved.keyPins = pins.map(\.description)
                try? profile.store.save(saved, as: profile.name)
            })
            made[key] = transport
            return transport
        }
    }

    private static let pinned = Mutex<[String: PinnedHTTPClientTransport]>([:])

    /// The profile's device, which must record its own usage (§8): a child's, or a parent's that
    /// is tracked (asked of the server, since tracking is switched on another device too).
    func trackedDevice(for action: String) async throws -> (Profile, FamilySyncClient) {
        let (profile, client) = try device()
        if profile.role != .child, !(try await client.me().recordsUsage) {
            throw OperatorError.configuration(
                "\(action) is for a tracked device; profile '\(profileName)' is an untracked parent (\(profile.name)): 'familysync members track' tracks it"
            )
        }
        return (profile, client)
    }

    /// The profile's device, which must have `role` for what was asked.
    func device(as role: DeviceRole, for action: String) throws -> (Profile, FamilySyncClient) {
        let (profile, client) = try device()
        guard profile.role == role else {
            throw OperatorError.configuration("\(action) is for a \(role.rawValue) device; profile '\(profileName)' is a \(profile.role.rawValue) (\(profile.name))")
        }
        return (profile, client)
    }

    /// The profile's sync state (change tokens, queued usage), beside the profile file.
    func stateStore() -> FileSyncStateStore {
        FileSyncStateStore(url: profiles.url.deletingLastPathComponent().appendingPathComponent("state/\(profileName).json"))
    }
}
