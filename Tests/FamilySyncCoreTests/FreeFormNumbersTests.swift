import FamilySyncCore
import Testing

@Suite struct FreeFormNumbersTests {
    @Test(arguments: ["0", "-1", "42", "9007199254740992", "-9007199254740992", "999999999999999", "1.5", "9007199254740993.0", "1e300", "-0.25e-3"])
    func isKept(_ text: String) {
        #expect(FreeFormNumbers.isKept(text))
    }

    @Test(arguments: ["9007199254740993", "-9007199254740993", "12345678901234567890", "9223372036854775807", "-99999999999999999999"])
    func isNotKept(_ text: String) {
        #expect(!FreeFormNumbers.isKept(text))
    }
}
