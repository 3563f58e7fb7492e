import FamilySyncApp
import FamilySyncCore
import FamilySyncServer
import Hummingbird
import Logging

/// The rungs between the floor's read and FamilySync's nothing-new (`familysync-bench serve …
/// ladder`): routes on FamilySync's own server, under its own middleware, each adding one part of
/// what a nothing-new request does. `GET /ladder/hello` answers "ok" under the outer stack every
/// request passes (request id, access log, metrics, compression, errors, the dashboard's headers,
/// body limit, forwarded address), in the child task each chain runs in;
/// `/ladder/read` makes the floor's read there, through the stores' `Database.leasing`; the
/// `/ladder/signed-in/…` pair does the same behind a device's credential and the middleware
/// that follows it (`authenticated`). What is left between the last rung and nothing-new is the
/// zone's change read itself: its token, its statement, its page.
struct FloorLadder: RouteModule {
    func addMiddleware(to router: MethodAwareRouter<FamilySyncRequestContext>) {}

    func addRoutes(
        to router: MethodAwareRouter<FamilySyncRequestContext>, api: APIResponder, configuration: ServerConfiguration, dependencies: ServerDependencies
    ) {
        let database = dependencies.database, logger = dependencies.logger
        @Sendable func read() async throws -> String {
            let balance = try await database.leasing { connection in
                try await ConnectionRunner(connection: connection, logger: logger).first(FloorRead(aid: .random(in: 1...100_000)))
            }
            return "\(balance)"
        }
        let ladder = router.group("ladder")
        ladder.get("hello") { _, _ in "ok" }
        ladder.get("read") { _, _ in try await read() }
        ladder.group("signed-in").authenticated(dependencies, limit: RateLimit(burst: 1_000_000_000, perMinute: 1_000_000_000))
            .get("hello") { _, _ in "ok" }
            .get("read") { _, _ in try await read() }
    }
}
