import FamilySyncCore
import Testing

/// The typed names are the registry's types, no more and no fewer.
@Suite struct RecordTypeNameTests {
    @Test func everyNameIsARegisteredTypeAndEveryTypeHasAName() {
        #expect(RecordTypeName.all == Set(RecordTypeRegistry.types.keys))
        for (name, type) in RecordTypeRegistry.types { #expect(type.name == name) }
    }
}
