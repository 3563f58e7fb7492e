import PostgresNIO

extension PostgresClient {
    /// The pool's size, PostgresNIO's default maximum.
    public static let defaultConnections = 20
}

extension PostgresClient.Configuration {
    /// A pool of at most `count` connections, opened as requests need them, with no keep-alive
    /// query. PostgresNIO (1.33) times a connection's keep-alive (30 s) and a demand connection's
    /// idle timeout (60 s) with `Task.sleep` each time it is parked, and cancels them when it is
    /// leased again; on Linux a cancelled sleep leaves its dispatch timer until its deadline. With
    /// keep-alive on, the server burned a tenth of a core for over a minute after a 20-second
    /// burst; without it, what is left is the idle timeouts, about 0.04 of a core in the minute
    /// after such a burst (familysync-bench afterload). The pool used to be held open (a minimum
    /// equal to the maximum), which parks no timer at all, but PostgresNIO's pool traps when a
    /// lease arrives while its held connections are closing under a database that died
    /// (`precondition(minimumConcurrentConnections <= stats.active)`): 7 of 55 postmaster kills
    /// ended the process that way, none of 42 with no minimum (familysync-bench recovery,
    /// 2026-11-25). What keep-alive found (an idle connection the network cut) is found on its
    /// next use instead: that request answers `TRY_AGAIN_LATER` (the watchdog of
    /// `failingWhenClosed`), and the pool opens another.
    public mutating func servingPool(upTo count: Int) {
        options.maximumConnections = count
        options.minimumConnections = 0
        options.keepAliveBehavior = nil
    }
}
