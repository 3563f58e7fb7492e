import FamilySyncPostgres
import Hummingbird
import Prometheus

/// `GET /metrics`: the Prometheus text format of the registry the process's metrics go to.
package struct MetricsController {
    let registry: PrometheusCollectorRegistry
    let database: Database
    /// The pool's use is sampled as it is scraped.
    let databaseMetrics: DatabaseMetrics

    package init(registry: PrometheusCollectorRegistry, database: Database, databaseMetrics: DatabaseMetrics) {
        self.registry = registry
        self.database = database
        self.databaseMetrics = databaseMetrics
    }

    package func addRoutes(to router: some RouterMethods<FamilySyncRequestContext>) {
        router.get("/metrics", use: metrics)
    }

    @Sendable func metrics(_ request: Request, context: FamilySyncRequestContext) -> Response {
        databaseMetrics.sample(database)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: buffer))
        )
    }
}
