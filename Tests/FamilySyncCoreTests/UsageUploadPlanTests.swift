import FamilySyncCore
import Foundation
import Testing

/// §7.2's upload decisions without a database: duplicates, conflicts and categories.
@Suite struct UsageUploadPlanTests {
    static func session(_ app: String, seconds: Int, category: CategoryID = .learning, bundle: String? = nil, id: UUID = UUID()) -> UsageSession {
        UsageSession(
            recordID: id, logicalID: app, displayName: app, bundleIdentifier: bundle, category: category, sessionStart: Instant.parse("2026-11-25T10:00:00Z")!,
            sessionEnd: Instant.parse("2026-11-25T10:30:00Z")!, totalSeconds: seconds, earnedPoints: 0
        )
    }

    @Test func newSessionsAreFreshAndTheSameAgainIsADuplicate() throws {
        let stored = Self.session("khan", seconds: 600)
        let new = Self.session("chess", seconds: 300)
        let fresh = try UsageUploadPlan.fresh([stored, new], uncategorised: [], configured: [:], stored: [stored.recordName: stored])
        #expect(fresh == [new])
    }

    @Test func theSameRecordWithOtherContentIsAConflictNamingIt() {
        let stored = Self.session("khan", seconds: 600)
        var changed = stored
        changed.totalSeconds = 601
        let error = #expect(throws: FamilySyncError.self) {
            try UsageUploadPlan.fresh([Self.session("chess", seconds: 1), changed], uncategorised: [], configured: [:], stored: [stored.recordName: stored])
        }
        #expect(error?.code == .conflict && error?.field == "records[1]")
    }

    /// Uncategorised: the device's configuration, else the bundle's built-in category, else
    /// `other`; sent again, the category it was stored with.
    @Test func uncategorisedSessionsTakeTheirCategoryInOrder() throws {
        let social = try #require(CategoryID(rawValue: "social_media"))
        let configured = Self.session("khan", seconds: 60, category: .other)
        let bundled = Self.session("yt", seconds: 60, category: .other, bundle: "com.google.ios.youtube")
        let unknown = Self.session("mystery", seconds: 60, category: .other)
        let ids: Set<UUID> = [configured.recordID, bundled.recordID, unknown.recordID]
        let fresh = try UsageUploadPlan.fresh([configured, bundled, unknown], uncategorised: ids, configured: ["khan": social], stored: [:])
        #expect(fresh.map(\.category) == [social, BundleCategories.category(of: "com.google.ios.youtube") ?? .other, .other])
        var storedKhan = configured
        storedKhan.category = .learning
        let again = try UsageUploadPlan.fresh([configured], uncategorised: ids, configured: ["khan": social], stored: [configured.recordName: storedKhan])
        #expect(again.isEmpty, "re-sent without a category, it keeps the stored one and is a duplicate")
    }
}
