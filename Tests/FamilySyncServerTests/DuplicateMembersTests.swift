@testable import FamilySyncServer
import Foundation
import Testing

@Suite struct DuplicateMembersTests {
    @Test(arguments: [
        (#"{"a":1,"b":2}"#, nil),
        (#"{"a":1,"a":2}"#, "a"),
        (#"{"a":{"b":1},"c":{"b":2}}"#, nil),
        (#"{"records":[{"id":1},{"id":2,"x":"id","id":3}]}"#, "records[1].id"),
        (#"[{"a":[1,{"a":0,"a":0}]}]"#, "[0].a[1].a"),
        (#"{"a":1,"\u0061":2}"#, "a"),
        (#"{"a\"b":1,"a\"c":2,"k":"a\"b"}"#, nil),
        (#"{"a\"b":1,"a\"b":2}"#, #"a"b"#),
        (#"{"":null,"":1}"#, ""),
    ] as [(String, String?)])
    func findsTheFirstRepeatedMember(json: String, path: String?) {
        #expect(DuplicateMembers.firstPath(in: Data(json.utf8)) == path)
    }
}
