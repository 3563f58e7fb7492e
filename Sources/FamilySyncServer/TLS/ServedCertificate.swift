import Foundation
import Logging
import NIOCertificateReloading
import NIOSSL
import ServiceLifecycle
import Synchronization

/// The certificate and key `serve` hands to each new TLS connection, read again whenever either
/// file changes (a renewal by certbot or the operator's own ACME client, written in place or by a
/// symlink swapped). A new pair that cannot be served (half written, the wrong key, expired) is
/// refused with one warning and the last good pair kept; connections already open keep the pair
/// they began with. NIOCertificateReloading's `TimedCertificateReloader` parses both files at every
/// tick, logs a failed reload only at debug and serves an expired certificate; this checks each
/// file's stamp at every tick and reads them only when one changed.
package final class ServedCertificate: CertificateReloader, Service, Sendable {
    package let certificateFile: String
    package let keyFile: String
    private let interval: Duration
    private let logger: Logger
    private let state: Mutex<State>

    private struct State {
        var pair: CertificateAndKey
        /// With pinning on (§3.2), the next key announced, if any: a new pair may have only that
        /// key or the one served.
        var pinning: [UInt8]??
        /// The files as last read, served or refused: a pair refused is not read again until it changes.
        var stamp: [FileStamp?]
    }

    /// Reads and checks the pair at once: a server with a pair it cannot serve does not start.
    package init(certificateFile: String, keyFile: String, checkEvery interval: Duration = .seconds(10), logger: Logger, now: Date = Date()) throws(TLSFileError) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.interval = interval
        self.logger = logger
        let stamp = [FileStamp(certificateFile), FileStamp(keyFile)]
        state = Mutex(State(pair: try CertificateAndKey(certificateFile: certificateFile, keyFile: keyFile, now: now), pinning: nil, stamp: stamp))
    }

    package var current: CertificateAndKey { state.withLock { $0.pair } }

    /// From now on a new pair is served only with the key served now or `next`: devices pinned
    /// to these keys would refuse any other.
    package func keepPinned(next: [UInt8]?) {
        state.withLock { $0.pinning = .some(next) }
    }

    package var sslContextConfigurationOverride: NIOSSLContextConfigurationOverride {
        let pair = current
        var override = NIOSSLContextConfigurationOverride()
        override.certificateChain = pair.chain.map { .certificate($0) }
        override.privateKey = .privateKey(pair.key)
        return override
    }

    /// The server's TLS configuration: TLS 1.2 and later with the library's cipher choices, HTTP/2
    /// and HTTP/1.1 by ALPN, and the pair asked of this at every handshake.
    package func serverConfiguration() -> TLSConfiguration {
        let pair = current
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: pair.chain.map { .certificate($0) }, privateKey: .privateKey(pair.key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["h2", "http/1.1"]
        configuration.setCertificateReloader(self)
        return configuration
    }

    /// Checks the files every interval until the server shuts down.
    package func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    try await Task.sleep(for: self.interval)
                    self.reloadIfChanged()
                }
            }
        } catch is CancellationError {}
    }

    /// What a check found: nothing changed, a new pair served, or a new pair refused.
    package enum Reload: Equatable { case unchanged, served, refused(String) }

    @discardableResult
    package func reloadIfChanged(now: Date = Date()) -> Reload {
        let stamp = [FileStamp(certificateFile), FileStamp(keyFile)]
        guard stamp != state.withLock({ $0.stamp }) else { return .unchanged }
        do throws(TLSFileError) {
            let pair = try CertificateAndKey(certificateFile: certificateFile, keyFile: keyFile, now: now)
            let (served, pinning) = state.withLock { ($0.pair.publicKeyPin, $0.pinning) }
            if case .some(let next) = pinning, pair.publicKeyPin != served, pair.publicKeyPin != next {
                throw TLSFileError(.key, keyFile, "is not the key served or the one announced by --tls-next-certificate, which pinned devices accept")
            }
            state.withLock { state in
                state.pair = pair
                state.stamp = stamp
            }
            logger.notice("TLS certificate reloaded", metadata: ["notValidAfter": "\(pair.notValidAfter.formatted(.iso8601))"])
            return .served
        } catch {
            state.withLock { $0.stamp = stamp }
            logger.warning("TLS certificate not reloaded; the one in use is kept", metadata: ["reason": "\(error.description)"])
            return .refused(error.description)
        }
    }
}

/// What tells a file changed without reading it: its inode, size and modification time, through
/// symlinks.
struct FileStamp: Equatable {
    let inode: UInt64
    let size: Int64
    let modified: Int64
    let modifiedNanoseconds: Int

    init?(_ path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        modified = Int64(status.st_mtim.tv_sec)
        modifiedNanoseconds = status.st_mtim.tv_nsec
    }
}

extension ServedCertificate: Equatable {
    package static func == (left: ServedCertificate, right: ServedCertificate) -> Bool { left === right }
}
