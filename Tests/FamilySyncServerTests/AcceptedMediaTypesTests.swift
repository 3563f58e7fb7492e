@testable import FamilySyncServer
import Testing

/// The one `Accept` reader (RFC 9110 §12.5.1): CSV or text against JSON by weight, `q=0` honoured.
@Suite struct AcceptedMediaTypesTests {
    @Test(arguments: [
        ([], false),
        (["text/csv"], true),
        (["TEXT/CSV"], true),
        (["text/csv, application/json"], true),
        (["application/json, text/csv"], false),
        (["application/json", "text/csv"], false),
        (["text/csv;q=0, application/json"], false),
        (["text/csv;q=0"], false),
        (["text/csv; q=0"], false),
        (["application/json;q=0.5, text/csv"], true),
        (["application/json, text/csv;q=0.9"], false),
        (["text/*"], true),
        (["*/*"], false),
        (["text/csv;q=0.5, */*;q=0.1"], true),
        (["*/*;q=0.8, application/json;q=0.2, text/csv;q=0"], false),
        (["text/csv;q=abc, application/json"], false),
        (["text/csv;q=2"], false),
        (["application/json;q=0"], false),
        (["application/json;q=0, text/csv"], true),
    ] as [([String], Bool)])
    func csvIsAnsweredOnlyWhenItWeighsMore(_ accept: [String], _ csv: Bool) {
        #expect(AcceptedMediaTypes(accept).prefers("text/csv", over: "application/json") == csv, "\(accept)")
    }

    /// The weights, with the range that gave them.
    @Test func theMostSpecificRangeGivesTheWeight() {
        let accept = AcceptedMediaTypes(["*/*;q=0.1, text/*;q=0.5, text/plain;q=0.9"])
        #expect(accept.weight(of: "text/plain").weight == 0.9)
        #expect(accept.weight(of: "text/csv").weight == 0.5)
        #expect(accept.weight(of: "application/json").weight == 0.1)
        #expect(AcceptedMediaTypes(["text/plain"]).weight(of: "application/json").weight == 0)
    }
}
