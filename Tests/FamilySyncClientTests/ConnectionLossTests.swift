import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncTestSupport
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A server that answers the first request of each connection (keep-alive) and closes the
/// connection on the second without answering: what a server or proxy closing an idle keep-alive
/// connection looks like to a request sent on it at that moment.
final class ClosingSecondRequestServer: Sendable {
    let holder: PortHolder
    /// Every request read, as its request line.
    let requests = Mutex<[String]>([])
    /// The request lines that came first on their connection.
    let firstOnTheirConnection = Mutex<[String]>([])
    var port: Int { holder.port }

    init() throws {
        holder = try PortHolder()
        acceptEach(on: holder) { [self] in serve($0) }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var buffered: [UInt8] = []
        for index in 0..<2 {
            guard let head = readRawRequest(connection, &buffered)?.line else { return }
            requests.withLock { $0.append(head) }
            if index == 0 { firstOnTheirConnection.withLock { $0.append(head) } }
            guard index == 0 else { return }
            let body = #"{"status":"live"}"#
            let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            _ = answer.withCString { send(connection, $0, strlen($0), 0) }
        }
    }

    func stop() { holder.close() }
}

/// A keep-alive connection closing as a request is sent on it, over each transport.
@Suite struct ConnectionLossTests {
    static func client(_ port: Int, _ credential: String?, _ via: TestTransport) -> FamilySyncClient {
        // AsyncHTTPClient as the CLI has it: a refused connection is not retried until the deadline.
        let transport: any HTTPTransport = via == .asyncHTTPClient ? AsyncHTTPClientTransport.shared : URLSessionTransport.shared
        return FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(port)")!, credential: credential, transport: transport)
    }

    @Test(arguments: TestTransport.allCases) func aReadWhoseReusedConnectionClosesIsSentAgainOnce(_ via: TestTransport) async throws {
        let server = try ClosingSecondRequestServer()
        defer { server.stop() }
        let client = Self.client(server.port, nil, via)
        _ = try await client.live()
        // Sent on the kept-alive connection, which closes without an answer; again on a new one
        // (by the SDK over AsyncHTTPClient, by libcurl below FoundationNetworking's URLSession).
        #expect(try await client.live().status == "live")
        #expect(server.requests.withLock { $0 } == Array(repeating: "GET /health/live HTTP/1.1", count: 3))
    }

    @Test func aWriteThatMayHaveArrivedIsNotSentAgain() async throws {
        let server = try ClosingSecondRequestServer()
        defer { server.stop() }
        let client = Self.client(server.port, "parent", .asyncHTTPClient)
        _ = try await client.live()
        // A command is not sent twice: the first may have reached the server.
        let error = await #expect(throws: FamilySyncError.self) {
            _ = try await client.sendCommand(to: UUID(), CreateCommandRequest(commandType: "syncNow"))
        }
        #expect(error?.code == .tryAgainLater)
        #expect(server.requests.withLock { $0.count } == 2)
    }

    @Test func aReplayableUploadIsSentAgainOnce() async throws {
        let server = try ClosingSecondRequestServer()
        defer { server.stop() }
        let client = Self.client(server.port, "child", .asyncHTTPClient)
        _ = try await client.live()
        // Usage is kept by record id (§8): the same batch twice is the batch once. The new
        // connection's answer is the health body, which does not decode as an upload's answer;
        // what counts here is that it was sent again.
        _ = try? await client.uploadUsage(UsageUploadRequest(timeZone: "UTC", records: []))
        #expect(server.requests.withLock { $0 }.suffix(2) == ["POST /v1/usage HTTP/1.1", "POST /v1/usage HTTP/1.1"])
    }

    #if canImport(FoundationNetworking)
    /// libcurl cannot send a body again on a new connection (the request would hang until its
    /// timeout), so over FoundationNetworking a request with a body never takes a kept-alive one.
    @Test func overFoundationNetworkingAWriteNeverMeetsAClosingConnection() async throws {
        let server = try ClosingSecondRequestServer()
        defer { server.stop() }
        let client = Self.client(server.port, "parent", .urlSession)
        _ = try await client.live()
        // The stand-in answers the health body, which does not decode as a command: what counts
        // is that the command came once, first on a connection of its own.
        let error = await #expect(throws: FamilySyncError.self) {
            _ = try await client.sendCommand(to: UUID(), CreateCommandRequest(commandType: "syncNow"))
        }
        #expect(error?.code == .internalError)
        let requests = server.requests.withLock { $0 }
        #expect(requests.count == 2)
        #expect(requests.last?.hasPrefix("POST /v1/devices/") == true)
        #expect(server.firstOnTheirConnection.withLock { $0 } == requests)
    }
    #endif
}
