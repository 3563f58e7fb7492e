@testable import FamilySyncClient
import FamilySyncProtocol
import FamilySyncTestSupport
import Foundation
import Testing

/// An app and its extensions keep one state in their app group's container.
@Suite struct AppGroupStateTests {
    @Test func theAppAndItsExtensionsShareOneStateInTheContainer() async throws {
        try await withTemporaryDirectory { container in
            let containerURL = URL(fileURLWithPath: container)
            // Each process opens the store by the container the app group gives it.
            let app = FileSyncStateStore(appGroupContainer: containerURL)
            let monitor = FileSyncStateStore(appGroupContainer: containerURL)
            #expect(app.url.path == container + "/Library/Application Support/FamilySync/sync-state.json")
            #expect(app.protection == .completeUntilFirstUserAuthentication)

            // The monitor extension queues usage and records an error; the app's engine saves a token.
            let start = Date(timeIntervalSince1970: 1_795_000_000)
            try await UsageUploadQueue(store: monitor).enqueue([UsageRecordBody(
                recordID: "r1", logicalID: "app", displayName: "App", category: "learning", sessionStart: start, sessionEnd: start.addingTimeInterval(60), totalSeconds: 60
            )])
            try await HealthReporter(store: monitor).record(ExtensionErrorBody(
                id: UUID(), timestamp: start, eventName: "intervalDidStart", action: "record_usage", success: false, errorDescription: "denied"
            ))
            try app.update { $0.zoneTokens["family"] = "token" }

            let seen = try app.load()
            #expect(seen.pendingUsage.map(\.recordID) == ["r1"])
            #expect(seen.pendingHealthErrors.map(\.errorDescription) == ["denied"])
            #expect(try monitor.load() == seen)

            // Only the device's user may read it.
            let attributes = try FileManager.default.attributesOfItem(atPath: app.url.path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let folder = try FileManager.default.attributesOfItem(atPath: app.url.deletingLastPathComponent().path)
            #expect((folder[.posixPermissions] as? Int) == 0o700)
        }
    }
}
