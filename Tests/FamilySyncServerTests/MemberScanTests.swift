@testable import FamilySyncServer
import Foundation
import Testing

@Suite struct MemberScanTests {
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
        #expect(MemberScan.firstRepeated(in: Data(json.utf8)) == path)
    }
}

/// The byte walk says a body has an undeclared member, or a null where none is taken, exactly when
/// `StrictJSON`'s walk over the parsed body throws: a body it passes is never checked again.
@Suite struct MemberScanAgreementTests {
    static let tree = MemberTree.object([
        "a": .any,
        "b": .nullable(.object(["c": .any])),
        "list": .array(.object(["x": .any, "y": .nullable(.any)])),
        "fields": .any,
    ])

    @Test(arguments: [
        (#"{"a":1}"#, false),
        (#"{"a":null}"#, true),
        (#"{"b":null}"#, false),
        (#"{"b":{"c":null}}"#, true),
        (#"{"b":{"d":1}}"#, true),
        (#"{"list":[{"x":1,"y":null},null]}"#, false),
        (#"{"list":[{"x":null}]}"#, true),
        (#"{"list":[{"x":1},{"z":1}]}"#, true),
        (#"{"list":null}"#, true),
        (#"{"list":[]}"#, false),
        (#"{"fields":{"anything":null,"n":[null,{"deep":null,"more":{"k":null}}]},"a":2}"#, false),
        (#"{"a":"null, n \"quoted\" {[ ]}","fields":{}}"#, false),
        (#"{"zz":1}"#, true),
        (#"{"\u0061":1}"#, false),
        (#"{"a":1e5,"b":{"c":true},"list":[{"x":[null,{"q":null}]}]}"#, false),
        (#" { "a" : null } "#, true),
        (#"{"b":{"c":{"d":null}},"list":[{"y":{"free":null}}]}"#, false),
    ] as [(String, Bool)])
    func theWalksAgree(json: String, refused: Bool) throws {
        let data = Data(json.utf8)
        #expect(MemberScan.scan(data, against: Self.tree) == .init(repeated: nil, undeclared: refused))
        let input = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        let thrown = (try? StrictJSON.check(input, Self.tree, path: "")) == nil
        #expect(thrown == refused, "StrictJSON's walk")
    }
}
