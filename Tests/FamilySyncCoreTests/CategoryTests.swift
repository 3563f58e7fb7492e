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

    /// Which members of which record types name categories, and the refusal of a family's own
    /// without its record, naming the first such member.
    @Test func recordsNameCategoriesInTheMembersTheirTypeDeclares() throws {
        func record(_ type: String, _ fields: [String: JSONValue], deleted: Bool = false) -> Record {
            Record(
                recordName: "r", recordType: type, fields: fields, changeTag: "1", deleted: deleted,
                createdAt: Date(), createdBy: UUID(), modifiedAt: Date(), modifiedBy: UUID(), modifiedRole: .parent, clientModifiedAt: Date()
            )
        }
        let schedule = record("Schedule", ["categories": .array([.string("gaming"), .string("x-piano"), .string("x-chores")])])
        #expect(RecordTypeRegistry.categories(namedBy: schedule, field: "f").map(\.field) == ["f.categories[0]", "f.categories[1]", "f.categories[2]"])
        #expect(RecordTypeRegistry.categories(namedBy: record("Budget", ["category": .string("*")]), field: "f").isEmpty)
        #expect(RecordTypeRegistry.categories(namedBy: record("Budget", ["category": .string("x-piano")]), field: "f") == [NamedCategory(CategoryID(rawValue: "x-piano")!, field: "f.category")])
        #expect(RecordTypeRegistry.categories(namedBy: record("AppConfiguration", ["category": .string("x-piano")], deleted: true), field: "f").isEmpty)
        #expect(RecordTypeRegistry.categories(namedBy: record("x-note", ["category": .string("x-piano")]), field: "f").isEmpty)

        let kinds = CategoryKinds(familyDefined: [CategoryID(rawValue: "x-chores")!: .learning])
        let refused = #expect(throws: FamilySyncError.self) { try kinds.check(RecordTypeRegistry.categories(namedBy: schedule, field: "f")) }
        #expect(refused?.code == .badRequest && refused?.field == "f.categories[1]")
        try kinds.check([NamedCategory(.learning, field: "a"), NamedCategory(CategoryID(rawValue: "x-chores")!, field: "b")])
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
