import FamilySyncCore
import Foundation
import Testing

/// PROTOCOL §9.1's category ids, kinds and the server's categorisation, without a database.
@Suite struct CategoryTests {
    @Test(arguments: ["learning", "reward", "social_media", "other", "x-chores", "x-a", "x-" + String(repeating: "z", count: 64), "x-piano_2-hands"])
    func aCategoryIDIsAccepted(_ text: String) {
        #expect(CategoryID(rawValue: text) != nil)
    }

    @Test(arguments: ["", "games", "x-", "x-Chores", "x-" + String(repeating: "z", count: 65), "x-é", "Learning", "*"])
    func aCategoryIDIsRefused(_ text: String) {
        #expect(CategoryID(rawValue: text) == nil)
    }

    @Test func kindsComeFromTheBuiltInsAndTheFamilysRecords() {
        let kinds = CategoryKinds(records: [
            ["id": .string("x-chores"), "displayName": .string("Chores"), "kind": .string("learning")],
            ["id": .string("social_media"), "displayName": .string("Social"), "kind": .string("neutral")],
        ])
        #expect(kinds.kind(of: .learning) == .learning && kinds.kind(of: .reward) == .reward)
        #expect(kinds.kind(of: CategoryID(rawValue: "gaming")!) == .neutral)
        #expect(kinds.kind(of: CategoryID(rawValue: "x-chores")!) == .learning)
        #expect(kinds.isKnown(CategoryID(rawValue: "x-chores")!) && !kinds.isKnown(CategoryID(rawValue: "x-piano")!))
    }

    @Test func aCategoryRecordKeepsABuiltInsKindAndItsName() throws {
        try CategoryFields.validate(["id": .string("gaming"), "displayName": .string("Games"), "kind": .string("neutral")], recordName: "category-gaming", field: "f")
        let changed = #expect(throws: FamilySyncError.self) {
            try CategoryFields.validate(["id": .string("gaming"), "displayName": .string("Games"), "kind": .string("reward")], recordName: "category-gaming", field: "f")
        }
        #expect(changed?.field == "f.kind")
        let misnamed = #expect(throws: FamilySyncError.self) {
            try CategoryFields.validate(["id": .string("x-chores"), "displayName": .string("C"), "kind": .string("learning")], recordName: "category-x-other", field: "f")
        }
        #expect(misnamed?.field == "f.id")
    }

    /// The category a record names; else the device's configuration of the app; else the
    /// built-in table by bundle id (any case); else other.
    @Test func theServerCategorisesInThisOrder() {
        let configured = ["app-insta": CategoryID(rawValue: "x-chores")!]
        #expect(CategoryResolver.category(named: .reward, logicalID: "app-insta", bundleIdentifier: "com.burbn.instagram", configured: configured) == .reward)
        #expect(CategoryResolver.category(named: nil, logicalID: "app-insta", bundleIdentifier: "com.burbn.instagram", configured: configured) == CategoryID(rawValue: "x-chores"))
        #expect(CategoryResolver.category(named: nil, logicalID: "ig", bundleIdentifier: "com.burbn.Instagram", configured: configured) == CategoryID(rawValue: "social_media"))
        #expect(CategoryResolver.category(named: nil, logicalID: "ig", bundleIdentifier: "org.example.unknown", configured: configured) == .other)
        #expect(CategoryResolver.category(named: nil, logicalID: "ig", bundleIdentifier: nil, configured: [:]) == .other)
    }

    @Test func theBuiltInTableHoldsAtLeastAHundredAppsOfKnownCategories() {
        #expect(BundleCategories.table.count >= 100)
        for (bundle, category) in BundleCategories.table {
            #expect(bundle == bundle.lowercased(), "\(bundle)")
            #expect(CategoryID(rawValue: category)?.isBuiltIn == true, "\(bundle) → \(category)")
        }
    }
}
