import FamilySyncTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Accepts every connection on `holder`'s port, each served by `serve` on a thread of its own
/// (blocking socket calls stay off the cooperative pool), until the port is closed.
func acceptEach(on holder: PortHolder, _ serve: @escaping @Sendable (Int32) -> Void) {
    let listening = holder.descriptor
    Thread.detachNewThread {
        while true {
            let connection = accept(listening, nil, nil)
            guard connection >= 0 else { return }
            Thread.detachNewThread { serve(connection) }
        }
    }
}

/// Reads one request (its head and `Content-Length` body) from `connection`, after the bytes
/// `buffered` already holds: its request line and its bytes; what follows stays in `buffered`.
/// Nil when the connection closes first.
func readRawRequest(_ connection: Int32, _ buffered: inout [UInt8]) -> (line: String, bytes: [UInt8])? {
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let text = String(decoding: buffered, as: UTF8.self)
        if let end = text.range(of: "\r\n\r\n") {
            let head = String(text[..<end.lowerBound])
            let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            let total = text.utf8.distance(from: text.utf8.startIndex, to: end.upperBound) + length
            if buffered.count >= total {
                let bytes = Array(buffered[0..<total])
                buffered.removeFirst(total)
                return (String(head.split(separator: "\r\n").first ?? ""), bytes)
            }
        }
        let count = recv(connection, &chunk, chunk.count, 0)
        guard count > 0 else { return nil }
        buffered += chunk[0..<count]
    }
}
