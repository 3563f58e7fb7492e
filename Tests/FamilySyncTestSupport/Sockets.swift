import Foundation
#if canImport(Glibc)
import Glibc
#endif

public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A TCP port nothing listens on now, for a server a test starts in a moment. It is taken below
/// the kernel's ephemeral range: a port from that range (the kernel's pick for port 0) may be
/// handed to some test's outgoing connection before the server binds it ("already in use").
public func freePort() throws -> Int {
    let ephemeralStart = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
        .flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { Int($0) } } ?? 32768
    if ephemeralStart > 11_000 {
        for _ in 0..<100 {
            let port = Int.random(in: 10_000..<ephemeralStart)
            if let holder = try? PortHolder(port: port) {
                holder.close()
                return port
            }
        }
    }
    let holder = try PortHolder()
    defer { holder.close() }
    return holder.port
}

/// Holds a listening socket on a port until `close()`.
public final class PortHolder: Sendable {
    public let descriptor: Int32
    public let port: Int

    /// `port` 0: the kernel picks one.
    public init(port requested: Int = 0) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(requested).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 1) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard ok else {
            Glibc.close(descriptor)
            throw TestFailure("could not listen")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    public func close() { Glibc.close(descriptor) }
}

/// Runs blocking socket calls on a thread of their own. On the cooperative pool (two threads on a
/// two-core machine) a blocked `recv` can stall the very server it waits for, whose handlers run
/// there too, until the call times out.
public func offCooperativePool<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Swift.Result { try body() }) }
    }
}

/// Sends raw bytes to 127.0.0.1:port and returns the answer: what arrives until its head and a
/// JSON body's end are in, the peer closes, or nothing has come for `timeout` seconds. Lets a test
/// send headers that promise a body it never sends. The bound is on a silence, not the answer's
/// pace: a busy machine's server can take seconds to answer, and a test waiting for an answer
/// must not read a slow one as none.
public func rawExchange(port: Int, request: String, timeout: Int = 60) async throws -> String {
    try await offCooperativePool { try blockingExchange(port: port, request: request, timeout: timeout) }
}

private func blockingExchange(port: Int, request: String, timeout: Int) throws -> String {
    let descriptor = try connectedSocket(port: port)
    defer { close(descriptor) }
    var time = timeval(tv_sec: timeout, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    _ = request.withCString { send(descriptor, $0, strlen($0), 0) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = recv(descriptor, &buffer, buffer.count, 0)
        if count <= 0 { break }
        received += buffer[0..<count]
        if let text = String(bytes: received, encoding: .utf8), text.contains("\r\n\r\n"), text.contains("}") { break }
    }
    return String(decoding: received, as: UTF8.self)
}


/// Connects and sends `request`, leaving the connection open: the caller reads or closes it.
public func openExchange(port: Int, request: String) throws -> Int32 {
    let descriptor = try connectedSocket(port: port)
    _ = request.withCString { send(descriptor, $0, strlen($0), 0) }
    return descriptor
}

/// A TCP socket connected to 127.0.0.1:port; the caller closes it.
public func connectedSocket(port: Int) throws -> Int32 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    guard connected else {
        close(descriptor)
        throw TestFailure("could not connect to \(port)")
    }
    return descriptor
}
