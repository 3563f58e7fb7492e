// swift-tools-version: 6.1
import PackageDescription

// Strict concurrency is the default of the Swift 6 language mode used by every target.
let package = Package(
    name: "FamilySync",
    // The SDK's platforms: an iOS app and its extensions, a Mac, a watch, a TV. `Synchronization`
    // (the SDK's `Mutex`) sets the floor.
    platforms: [.macOS(.v15), .iOS(.v18), .watchOS(.v11), .tvOS(.v18)],
    products: [
        .executable(name: "familysync", targets: ["familysync"]),
        .library(name: "FamilySyncClient", targets: ["FamilySyncClient"]),
        .library(name: "FamilySyncClientNIO", targets: ["FamilySyncClientNIO"]),
        .library(name: "FamilySyncProtocol", targets: ["FamilySyncProtocol"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", .upToNextMinor(from: "1.0.2")),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/swiftcsv/SwiftCSV.git", from: "0.10.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        // The stand-in APNs in the tests: HTTP/2 over TLS with a certificate made at start.
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        // The web dashboard's pages (Sources/FamilySyncWeb).
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // A channel with back pressure between an export's database reads and its response (§15.2).
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.0.2"),
        // Traces (docs/operations.md, "Traces"): the API the stores and middleware use, and
        // OpenTelemetry's OTLP/HTTP exporter, which `serve` starts when an endpoint is configured.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.0"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        // A caller's `traceparent` read as OpenTelemetry reads it, before any tracer sees it.
        .package(url: "https://github.com/swift-otel/swift-w3c-trace-context.git", from: "1.0.0"),
        // Generated bodies for the one-pass reader's agreement with strict decoding (tests only).
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        // The domain: pure Swift + Foundation + Crypto, no I/O.
        .target(
            name: "FamilySyncCore",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                // PBKDF2 for the parent PIN (§11).
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The wire types of PROTOCOL.md, shared by server and client.
        .target(name: "FamilySyncProtocol", dependencies: ["FamilySyncCore"]),
        // The store: PostgreSQL through PostgresNIO, migrations, the embedded database.
        .target(
            name: "FamilySyncPostgres",
            dependencies: [
                "FamilySyncCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // NIO's timers for the deadlines raced on every lease (TimerSleep).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // Only for the pool's error type, which PostgresNIO throws as it is.
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // HTTP: middleware, controllers, the wire codec, error mapping; FamilySyncApp assembles them.
        .target(
            name: "FamilySyncServer",
            dependencies: [
                "FamilySyncCore",
                "FamilySyncProtocol",
                "FamilySyncPostgres",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                // Its HTTP/1 child channel, run on the connection's loop (`ConnectionOnItsLoop`).
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                // The response parts Hummingbird writes (`HeadWithItsBody`).
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                // HTTPS (Sources/FamilySyncServer/TLS): TLS, HTTP/2 by ALPN, a stream's requests as
                // HTTP types, the pair read again when its files change, and the pair checked.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTPTypesHTTP2", package: "swift-nio-extras"),
                .product(name: "NIOCertificateReloading", package: "swift-nio-extras"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                // NIOThreadPool, for PBKDF2 off the event loop.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // gzip for clients that accept it (a full sync's pages).
                .product(name: "CompressNIO", package: "compress-nio"),
                // Traces: the span API; a caller's `traceparent` read as OpenTelemetry reads it.
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
            ]
        ),
        // The composition root: every store, service, job and outbound adapter built and
        // connected (ServerDependencies, buildApplication); the adapters for APNs, the webhook,
        // Apple's keys and OTLP. What `serve`, the tests' server and the benchmarks start.
        .target(
            name: "FamilySyncApp",
            dependencies: [
                "FamilySyncCore",
                "FamilySyncProtocol",
                "FamilySyncPostgres",
                "FamilySyncServer",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // Sign in with Apple identity tokens (§13): RS256 against Apple's JWKS; the APNs
                // provider token (ES256).
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // APNs over TLS: trust roots of a stand-in in tests and benchmarks.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // Traces: OpenTelemetry's exporter (`TraceExport`).
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
            ]
        ),
        // The parent's web dashboard under /app, a `RouteModule` the server's builders mount
        // (`familysync serve`, the tests' server, the benchmarks): it reads and acts through the
        // SDK's calls, answered in process by the API's own routes, and renders with Mustache.
        .target(
            name: "FamilySyncWeb",
            dependencies: [
                "FamilySyncCore",
                "FamilySyncProtocol",
                "FamilySyncServer",
                "FamilySyncApp",
                // The dashboard's sessions, its one store of its own (`PostgresDashboardSessionStore`).
                "FamilySyncPostgres",
                "FamilySyncClient",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Mustache", package: "swift-mustache"),
                // The form tokens bound to a session (HMAC-SHA-256).
                .product(name: "Crypto", package: "swift-crypto"),
                // Debian's qrencode draws the sign-in page's QR code as SVG.
                .product(name: "Subprocess", package: "swift-subprocess"),
            ]
        ),
        // The SDK a parent or child app and its extensions link: Foundation's URLSession and the
        // wire types, nothing that does not build for iOS, macOS, watchOS and tvOS
        // (ClientTargetDependencyTests holds it to that).
        .target(name: "FamilySyncClient", dependencies: ["FamilySyncCore", "FamilySyncProtocol"]),
        // The SDK over AsyncHTTPClient, for the CLI, servers and the harnesses that run SwiftNIO.
        .target(
            name: "FamilySyncClientNIO",
            dependencies: [
                "FamilySyncClient",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // The server gzips a full sync's pages.
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // A pinned server's key checked on a connection of its own (PinnedHTTPClientTransport).
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Wiring only: `serve` and `migrate` for operators; the client subcommands (a parent or a
        // child device for a person) over the SDK.
        .executableTarget(
            name: "familysync",
            dependencies: [
                "FamilySyncServer",
                "FamilySyncApp",
                "FamilySyncWeb",
                "FamilySyncPostgres",
                "FamilySyncClient",
                "FamilySyncClientNIO",
                "FamilySyncCore",
                "FamilySyncProtocol",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftCSV", package: "SwiftCSV"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                // --ca-certificate: a self-signed server's certificate trusted by the CLI.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The performance harness: `swift run -c release familysync-bench` (see Benchmarks/README.md).
        .executableTarget(
            name: "familysync-bench",
            dependencies: [
                "FamilySyncServer",
                "FamilySyncApp",
                // The dashboard benchmark's pages, mounted as `serve` mounts them.
                "FamilySyncWeb",
                "FamilySyncPostgres",
                "FamilySyncProtocol",
                "FamilySyncClient",
                "FamilySyncClientNIO",
                "FamilySyncCore",
                // The push benchmark's APNs.
                "StandInAPNs",
                // PgBouncer as the tests run it (PgBouncerSetup).
                "FamilySyncTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The floor harness's loop-bound connections and NIO as the global executor.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                // The tracing harness's OTLP receiver.
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Benchmarks/FamilySyncBenchmarks"
        ),
        // What the SDK costs a program that links it (Benchmarks/sdk-footprint.sh): one scenario,
        // one executable per transport.
        .target(
            name: "SDKFootprintScenario",
            dependencies: ["FamilySyncClient", "FamilySyncProtocol"],
            path: "Benchmarks/SDKFootprint/Scenario"
        ),
        .executableTarget(
            name: "sdk-footprint-urlsession",
            dependencies: ["FamilySyncClient", "SDKFootprintScenario"],
            path: "Benchmarks/SDKFootprint/URLSession"
        ),
        .executableTarget(
            name: "sdk-footprint-asynchttpclient",
            dependencies: ["FamilySyncClientNIO", "SDKFootprintScenario"],
            path: "Benchmarks/SDKFootprint/AsyncHTTPClient"
        ),
        // Starts one throwaway PostgreSQL per test process and hands each suite a fresh database.
        .target(
            name: "FamilySyncTestSupport",
            dependencies: [
                "FamilySyncCore",
                "FamilySyncPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                // `runProgram`: a Debian tool run to its end without holding a thread of the pool.
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Tests/FamilySyncTestSupport"
        ),
        // A live server over a fresh database and a client for it: the server's and the SDK's tests.
        .target(
            name: "FamilySyncServerTestSupport",
            dependencies: [
                "FamilySyncCore",
                "FamilySyncProtocol",
                "FamilySyncPostgres",
                "FamilySyncServer",
                "FamilySyncApp",
                // The test server mounts the dashboard as `serve` does.
                "FamilySyncWeb",
                "FamilySyncTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                // HTTPS test servers and their clients (`TestTLS`).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/FamilySyncServerTestSupport"
        ),
        // Apple's push provider API on loopback, checking tokens as Apple does: for the push tests
        // and the push benchmark.
        .target(
            name: "StandInAPNs",
            dependencies: [
                "FamilySyncTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Tests/StandInAPNs"
        ),
        .testTarget(
            name: "FamilySyncCoreTests",
            dependencies: ["FamilySyncCore", .product(name: "Crypto", package: "swift-crypto"), .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "FamilySyncPostgresTests",
            dependencies: [
                "FamilySyncCore",
                "FamilySyncPostgres",
                "FamilySyncTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "FamilySyncServerTests",
            dependencies: [
                "FamilySyncCore",
                "FamilySyncProtocol",
                "FamilySyncPostgres",
                "FamilySyncServer",
                "FamilySyncApp",
                "FamilySyncServerTestSupport",
                "FamilySyncTestSupport",
                "StandInAPNs",
                // To read gzip answers back.
                .product(name: "CompressNIO", package: "compress-nio"),
                // Sign in with Apple tests make their own keys and tokens.
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                // `HeadWithItsBody` in a channel of its own.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // StandInAPNs' tests trust its certificate.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // A raw HTTP/2 client that breaks the server's limits (HTTP2LimitsTests).
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTPTypesHTTP2", package: "swift-nio-extras"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                // A modify's trace, exported by OTLP to the test's own receiver.
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                // schemathesis, run against a test server (SchemathesisTests).
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // The dashboard's pages against a live server (its own target: docs/architecture.md).
        .testTarget(
            name: "FamilySyncWebTests",
            dependencies: [
                "FamilySyncCore",
                "FamilySyncProtocol",
                "FamilySyncServer",
                "FamilySyncApp",
                "FamilySyncWeb",
                "FamilySyncClient",
                "FamilySyncServerTestSupport",
                "FamilySyncTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The SDK against a live server.
        .testTarget(
            name: "FamilySyncClientTests",
            dependencies: [
                "FamilySyncClient",
                // The HTTPS test server's configuration.
                "FamilySyncServer",
                "FamilySyncClientNIO",
                "FamilySyncCore",
                "FamilySyncProtocol",
                "FamilySyncServerTestSupport",
                "FamilySyncTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "familysyncTests",
            dependencies: [
                "familysync",
                // The CLI's push trial against a server process.
                "StandInAPNs",
                .product(name: "Crypto", package: "swift-crypto"),
                "FamilySyncCore",
                "FamilySyncProtocol",
                "FamilySyncPostgres",
                "FamilySyncClient",
                "FamilySyncClientNIO",
                "FamilySyncTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
    ]
)
