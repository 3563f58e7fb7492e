@testable import FamilySyncClient
import FamilySyncTestSupport
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLSessionTransport` answers its caller whatever FoundationNetworking does: a cancelled or late
/// request ends at once even when its task never completes and its session's work queue is
/// blocked (two CI runs hung on such a request, holding their test for ever).
@Suite struct URLSessionTransportTests {
    /// A request that never completes; stopping it blocks the session's serial work queue until the
    /// test lets go, as a FoundationNetworking session stuck inside libcurl would.
    final class StuckProtocol: URLProtocol, @unchecked Sendable {
        static let started = Atomic<Int>(0)
        static let released = DispatchSemaphore(value: 0)
        override class func canInit(with request: URLRequest) -> Bool { true }
        override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
        override func startLoading() { Self.started.add(1, ordering: .relaxed) }
        override func stopLoading() {
            Self.released.wait()
            Self.released.signal()
        }
    }

    static func stuckTransport() -> URLSessionTransport {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StuckProtocol.self]
        return URLSessionTransport(session: URLSession(configuration: configuration))
    }

    static func request(timeout: Duration) -> TransportRequest {
        TransportRequest(method: "GET", url: URL(string: "http://stuck.invalid/v1/poll")!, headers: [], body: nil, timeout: timeout)
    }

    @Test func aCancelledRequestIsAnsweredWhenItsSessionIsStuck() async throws {
        let transport = Self.stuckTransport()
        let before = StuckProtocol.started.load(ordering: .relaxed)
        let exchange = Task { try await transport.exchange(Self.request(timeout: .seconds(3_600))) }
        try await failingIfHung(after: .seconds(60), "the request's start") {
            while StuckProtocol.started.load(ordering: .relaxed) == before { try await Task.sleep(for: .milliseconds(10)) }
        }
        exchange.cancel()
        let outcome = try await failingIfHung(after: .seconds(60), "the cancelled request's answer") { await exchange.result }
        #expect((try? outcome.get()) == nil)
        // A second cancellation meets the blocked work queue: it is not waited for either.
        let again = Task { try await transport.exchange(Self.request(timeout: .seconds(3_600))) }
        again.cancel()
        _ = try await failingIfHung(after: .seconds(60), "a second cancelled request's answer") { await again.result }
        StuckProtocol.released.signal()
    }

    /// Past its timeout and the transport's grace, a request that never completes fails as one
    /// that may have reached the server (`noAnswer`), so that a replayable one is sent again.
    @Test func aRequestThatNeverCompletesEndsAfterItsTimeout() async throws {
        let transport = Self.stuckTransport()
        let failure = try await failingIfHung(after: .seconds(120), "the late request's answer") { () async -> TransportFailure? in
            do throws(TransportFailure) {
                _ = try await transport.exchange(Self.request(timeout: .seconds(1)))
                return nil
            } catch {
                return error
            }
        }
        #expect(failure?.kind == .noAnswer, "\(String(describing: failure))")
    }
}
