import PostgresNIO

extension PostgresClient {
    /// The pool's size, PostgresNIO's default maximum.
    public static let defaultConnections = 20
}

extension PostgresClient.Configuration {
    /// A pool of `count` connections opened at start and held, with no keep-alive query. PostgresNIO
    /// (1.33) times a connection's keep-alive (30 s) and a demand connection's idle timeout (60 s)
    /// with `Task.sleep` each time it is parked, and cancels them when it is leased again; on
    /// Linux a cancelled sleep leaves its dispatch timer until its deadline. Under load every
    /// request parked a connection, and after a 20-second burst the server burned a tenth of a core
    /// for over a minute on those timers. A held pool parks no timer. What keep-alive found (an
    /// idle connection the network cut) is found on its next use instead: that request answers
    /// `TRY_AGAIN_LATER` (the watchdog of `failingWhenClosed`), and the pool opens another.
    public mutating func holdConnections(_ count: Int) {
        options.maximumConnections = count
        options.minimumConnections = count
        options.keepAliveBehavior = nil
    }
}
