import ArgumentParser
import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import Foundation

/// What container health checks and orchestrators' probes call: one `GET /health/ready`, exit 0
/// when the server answers ready. No shell, no curl, nothing but the binary the image already has.
struct HealthcheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Ask a server whether it is ready (GET /health/ready): exit 0 if it is; 3 if it answers not ready, cannot be reached or does not answer in time."
    )

    @Option(help: "The server's base URL. Env: FAMILYSYNC_HEALTHCHECK_URL. Default: http://127.0.0.1 on the port `serve` takes from the same environment (FAMILYSYNC_PORT, else 8080); https:// when that environment gives serve a certificate (FAMILYSYNC_TLS_CERTIFICATE), which is then trusted for this host.")
    var url: String?

    @Option(help: "Seconds to wait for the answer (1–300).")
    var timeout = 5

    func validate() throws {
        guard (1...300).contains(timeout) else { throw ValidationError("--timeout must be 1 to 300 seconds, not \(timeout)") }
        _ = try Self.serverURL(url, ProcessInfo.processInfo.environment)
    }

    /// The flag, else FAMILYSYNC_HEALTHCHECK_URL, else this host on the port the server of the
    /// same environment listens on: a container that sets FAMILYSYNC_PORT needs nothing more for
    /// its HEALTHCHECK.
    static func serverURL(_ flag: String?, _ environment: [String: String]) throws -> String {
        if let flag { return flag }
        if let text = environment["FAMILYSYNC_HEALTHCHECK_URL"], !text.isEmpty { return text }
        let scheme = servedCertificate(environment) == nil ? "http" : "https"
        guard let text = environment["FAMILYSYNC_PORT"], !text.isEmpty else { return "\(scheme)://127.0.0.1:\(ServerConfiguration.defaultPort)" }
        guard let port = Int(text), (1...65535).contains(port) else {
            throw ValidationError("FAMILYSYNC_PORT must be a port (1 to 65535), not \(text)")
        }
        return "\(scheme)://127.0.0.1:\(port)"
    }

    /// The certificate `serve` is given by the same environment.
    static func servedCertificate(_ environment: [String: String]) -> String? {
        environment["FAMILYSYNC_TLS_CERTIFICATE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let text = try Self.serverURL(url, environment)
        // The server's own certificate, trusted for the address asked (127.0.0.1 is seldom a name
        // it carries): besides the system's roots, with no check of the host's name.
        let transport = try Self.servedCertificate(environment).map { try ClientContext.transport(trusting: $0, checkingHostName: false) } ?? ClientContext.transport
        let client = FamilySyncClient(serverURL: try ClientOptions.serverURL(text), transport: transport)
        let answer = try await withThrowingTaskGroup(of: ProbeStatus?.self) { group in
            group.addTask { try await client.ready() }
            group.addTask {
                try await Task.sleep(for: .seconds(timeout))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        guard let answer else {
            throw FamilySyncError(.tryAgainLater, "\(text) did not answer within \(timeout) s.")
        }
        print("\(answer.status) (schema version \(answer.schemaVersion.map(String.init) ?? "unknown"))")
    }
}
