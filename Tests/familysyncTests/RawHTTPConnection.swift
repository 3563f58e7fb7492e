import FamilySyncTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection to 127.0.0.1 for bytes no HTTP client would send: invalid UTF-8, bodies
/// that go on past the limit, heads that never end.
final class RawHTTPConnection: Sendable {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = try connectedSocket(port: port)
    }

    deinit { close(descriptor) }

    /// Sends `bytes` a piece at a time, stopping early when the server answers (or hangs up)
    /// before all of it is sent, as a server that refuses a body on its way in does; then reads
    /// the answer until the server closes or `timeout` passes without a byte. On a thread of its
    /// own, off the cooperative pool.
    func exchange(_ bytes: [UInt8], timeout: Int32 = 10_000) async throws -> String {
        try await offCooperativePool { self.blockingExchange(bytes, timeout: timeout) }
    }

    func exchange(_ text: String, timeout: Int32 = 10_000) async throws -> String {
        try await exchange(Array(text.utf8), timeout: timeout)
    }

    private func blockingExchange(_ bytes: [UInt8], timeout: Int32) -> String {
        var sent = 0
        while sent < bytes.count {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN | POLLOUT), revents: 0)
            guard poll(&poller, 1, timeout) > 0, poller.revents & Int16(POLLIN | POLLERR | POLLHUP) == 0 else { break }
            let count = bytes[sent...].prefix(65_536).withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { break }
            sent += count
        }
        return read(timeout: timeout)
    }

    /// What arrives until the server closes, the answer is complete, or `timeout` ms of silence.
    private func read(timeout: Int32) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !Self.isComplete(received) {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, timeout) > 0 else { break }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// A head and as many body bytes as its Content-Length says.
    static func isComplete(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<end.lowerBound].lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return false }
        return text[end.upperBound...].utf8.count >= length
    }

    /// Whether the server has closed this connection (a read sees the end, or a reset).
    var isClosedByPeer: Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK)) <= 0
    }
}
