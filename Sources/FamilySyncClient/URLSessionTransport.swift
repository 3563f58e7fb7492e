import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The SDK over `URLSession`: the system's networking on Apple platforms (its proxies, cellular
/// and Low Data settings), FoundationNetworking on Linux, where the tests run it.
public final class URLSessionTransport: HTTPTransport {
    public let session: URLSession

    /// The session `URLSessionTransport.shared` uses: no cache, no cookies, and a per-request
    /// timeout (the longest wait between two bytes) longer than a held long poll, so that
    /// URLSession never cuts a 60 s poll.
    public static func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = 90
        configuration.timeoutIntervalForResource = 120
        return URLSession(configuration: configuration)
    }

    public static let shared = URLSessionTransport(session: makeSession())

    public init(session: URLSession) {
        self.session = session
    }

    public func exchange(_ request: TransportRequest) async throws(TransportFailure) -> TransportResponse {
        var outgoing = URLRequest(url: request.url)
        outgoing.httpMethod = request.method
        outgoing.timeoutInterval = Double(request.timeout / .milliseconds(1)) / 1000
        // URLSession asks for and undoes compression itself.
        for (name, value) in request.headers where name.lowercased() != "accept-encoding" { outgoing.setValue(value, forHTTPHeaderField: name) }
        outgoing.httpBody = request.body
        let data: Data
        let response: URLResponse
        do {
            #if canImport(FoundationNetworking)
            if request.body != nil {
                // FoundationNetworking (libcurl) cannot rewind a body to send it again when a
                // kept-alive connection turns out closed: the request then hangs until its
                // timeout. A request with a body gets a session of its own, which holds no idle
                // connection (docs/sdk.md, "Connection loss"). Apple's URLSession reports
                // `networkConnectionLost` instead.
                let own = URLSession(configuration: session.configuration)
                defer { own.finishTasksAndInvalidate() }
                (data, response) = try await Self.data(for: outgoing, in: own)
            } else {
                (data, response) = try await Self.data(for: outgoing, in: session)
            }
            #else
            (data, response) = try await Self.data(for: outgoing, in: session)
            #endif
        } catch {
            throw TransportFailure(Self.kind(of: error), "\(error)")
        }
        guard let http = response as? HTTPURLResponse else { throw TransportFailure(.unreachable, "the answer was not HTTP") }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return TransportResponse(status: http.statusCode, headers: headers, body: data)
    }

    /// `URLSession.data(for:)`, cancelled with the calling task: FoundationNetworking's own
    /// `data(for:)` is not, and a stopped `SyncEngine` would wait out its held poll. It also ends
    /// by itself `answerDeadline` after the request's own timeout: FoundationNetworking has been
    /// seen, on a loaded machine, never to call a task's completion at all (neither the answer nor
    /// its own timeout), which would hold the caller for ever.
    ///
    /// The caller is answered here, never by waiting on FoundationNetworking: a task's `resume()`
    /// and `cancel()` block on its session's serial work queue (`workQueue.sync`), so a session
    /// stuck there would hold a cancellation or the deadline, and a cooperative thread with it.
    /// Those calls go to a GCD thread (`URLSessionTransport.calls`), and a cancelled or late
    /// request is answered at once, whatever its task does afterwards.
    static func data(for request: URLRequest, in session: URLSession) async throws -> (Data, URLResponse) {
        typealias Answer = CheckedContinuation<(Data, URLResponse), any Error>
        typealias Outcome = Result<(Data, URLResponse), any Error>
        struct Exchange {
            var task: URLSessionDataTask?
            var cancelled = false
            var waiting: Answer?
            /// An outcome that came before the caller waited for it.
            var early: Outcome?
            var answered = false
        }
        let exchange = Mutex(Exchange())
        // The one place the caller is answered: whichever outcome comes first.
        let finish: @Sendable (Outcome) -> Void = { outcome in
            exchange.withLock { state -> Answer? in
                guard !state.answered else { return nil }
                guard let waiting = state.waiting else {
                    if state.early == nil { state.early = outcome }
                    return nil
                }
                state.answered = true
                state.waiting = nil
                return waiting
            }?.resume(with: outcome)
        }
        let cancelTask: @Sendable () -> Void = {
            guard let task = exchange.withLock({ state -> URLSessionDataTask? in
                state.cancelled = true
                return state.task
            }) else { return }
            calls.async { task.cancel() }
        }
        let limit = Duration.milliseconds(Int64(request.timeoutInterval * 1000)) + answerDeadline
        let watchdog = Task {
            try await Task.sleep(for: limit)
            finish(.failure(URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: "no completion came \(limit) after the request was sent"])))
            cancelTask()
        }
        defer { watchdog.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Answer) in
                let early = exchange.withLock { state -> Outcome? in
                    guard let early = state.early else {
                        state.waiting = continuation
                        return nil
                    }
                    state.answered = true
                    return early
                }
                if let early { return continuation.resume(with: early) }
                calls.async {
                    let task = session.dataTask(with: request) { data, response, error in
                        if let data, let response {
                            finish(.success((data, response)))
                        } else {
                            finish(.failure(error ?? URLError(.badServerResponse)))
                        }
                    }
                    let cancelled = exchange.withLock { state in
                        state.task = task
                        return state.cancelled
                    }
                    if cancelled { task.cancel() } else { task.resume() }
                }
            }
        } onCancel: {
            finish(.failure(URLError(.cancelled)))
            cancelTask()
        }
    }

    /// Where the transport calls into FoundationNetworking's tasks (see `data(for:in:)`).
    static let calls = DispatchQueue(label: "FamilySyncClient.URLSessionTransport", attributes: .concurrent)

    /// How long past a request's timeout the transport stops waiting for FoundationNetworking.
    static let answerDeadline: Duration = .seconds(10)

    /// A connection lost mid-exchange may have carried the request; anything else reached nobody.
    static func kind(of error: any Error) -> TransportFailure.Kind {
        guard let error = error as? URLError else { return .unreachable }
        // A request that timed out may have reached the server as well.
        return [.networkConnectionLost, .timedOut].contains(error.code) ? .noAnswer : .unreachable
    }
}
