import AsyncHTTPClient
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A connection that closed before the server answered, told apart by whether the request left.
/// What an HTTP client may send again follows Go's `net/http` transport: a request that never
/// left, always; one that left without an answer, only when sending it twice is harmless.
enum ConnectionLoss: Equatable {
    /// The connection was closed before the request was written: the server never saw it.
    case nothingSent
    /// The request may have reached the server; the connection closed with no answer.
    case noAnswer

    init?(_ error: any Error) {
        if let error = error as? ChannelError, error == .ioOnClosedChannel {
            self = .nothingSent
        } else if let error = error as? HTTPClientError, error == .remoteConnectionClosed {
            self = .noAnswer
        } else if let error = error as? IOError, error.errnoCode == ECONNRESET || error.errnoCode == EPIPE {
            self = .noAnswer
        } else {
            return nil
        }
    }
}
