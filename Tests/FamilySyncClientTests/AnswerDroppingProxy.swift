import FamilySyncTestSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A hop in front of a test server that passes each request on (one a connection) and, for the
/// first `times` whose request line contains `dropping`, lets the server answer and then closes
/// the client's connection without the answer: an answer lost on the way back after the server
/// committed, as a phone leaving Wi-Fi sees it.
final class AnswerDroppingProxy: Sendable {
    let holder: PortHolder
    let serverPort: Int
    let dropping: String
    private let remaining: Mutex<Int>
    /// The request lines the server answered, in order, and those whose answers were dropped.
    let forwarded = Mutex<[String]>([])
    let dropped = Mutex<[String]>([])
    var port: Int { holder.port }

    init(to serverPort: Int, dropping: String, times: Int) throws {
        holder = try PortHolder()
        self.serverPort = serverPort
        self.dropping = dropping
        remaining = Mutex(times)
        acceptEach(on: holder) { [self] in serve($0) }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var buffered: [UInt8] = []
        guard let (line, request) = readRawRequest(client, &buffered) else { return }
        guard let server = try? connectedSocket(port: serverPort) else { return }
        defer { close(server) }
        // One request a connection: the server closes after answering, so its answer is read whole.
        let bytes = Self.closingConnection(request)
        _ = bytes.withUnsafeBytes { send(server, $0.baseAddress, $0.count, 0) }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(server, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            answer += chunk[0..<count]
        }
        forwarded.withLock { $0.append(line) }
        let drop = line.contains(dropping) && remaining.withLock { count in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
        if drop {
            dropped.withLock { $0.append(line) }
            return
        }
        _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
    }

    /// The request with `Connection: close` in place of whatever it said about the connection.
    static func closingConnection(_ request: [UInt8]) -> [UInt8] {
        let text = String(decoding: request, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return request }
        let head = text[..<end.lowerBound].split(separator: "\r\n").filter { !$0.lowercased().hasPrefix("connection:") }
        let headBytes = Array((head.joined(separator: "\r\n") + "\r\nConnection: close\r\n\r\n").utf8)
        let bodyStart = text.utf8.distance(from: text.utf8.startIndex, to: end.upperBound)
        return headBytes + request[bodyStart...]
    }

    func stop() { holder.close() }
}
