import FamilySyncTestSupport
import Foundation
import Testing

/// Every operation of the OpenAPI document has a typed call in the SDK, and the SDK asks for
/// nothing the document does not list. The SDK's side is read from its sources: each
/// `send(.METHOD, "path…"` (or `download(.METHOD, …`) of Sources/FamilySyncClient.
@Suite struct SDKCoverageTests {
    /// Operations an app never calls: Prometheus scrapes `/metrics` (docs/operations.md).
    static let notForApps: Set<String> = ["GET /metrics"]

    @Test func everyOperationHasACallAndEveryCallAnOperation() throws {
        let calls = try SDKRequests.read(from: TestPaths.packageRoot.appendingPathComponent("Sources/FamilySyncClient"))
        #expect(calls.count > 40, "the scan found the SDK's calls")
        let operations = OpenAPIDocument.routes.flatMap { path, methods in methods.map { "\($0) \(path)" } }
        #expect(operations.count > 50, "the scan found the document's operations")
        let missing = operations.filter { operation in
            !Self.notForApps.contains(operation) && !calls.contains { $0.matches(operation) }
        }
        #expect(missing.sorted() == [], "operations without an SDK call")
        let undocumented = calls.filter { call in !operations.contains { call.matches($0) } }
        #expect(undocumented.map(\.description).sorted() == [], "SDK calls to no documented operation")
    }

    @Test func theScanReadsInterpolatedPaths() {
        let calls = SDKRequests.scan(#"""
            try await send(.PATCH, "/v1/devices/\(id?.lowercased ?? "me")", body: changes, as: DeviceBody.self)
            try await send(
                .GET, "/v1/zones/\(zone)/changes", query: [("since", since)], as: ZoneChangesResponse.self)
            transport.send(request, replayable: true)
            """#)
        #expect(calls.map(\.description) == ["PATCH /v1/devices/{me}", "GET /v1/zones/{}/changes"])
        #expect(calls[0].matches("PATCH /v1/devices/me") && calls[0].matches("PATCH /v1/devices/{id}"))
        #expect(!calls[0].matches("PATCH /v1/devices/other") && !calls[0].matches("GET /v1/devices/{id}"))
        #expect(calls[1].matches("GET /v1/zones/{zone}/changes") && !calls[1].matches("GET /v1/zones/{zone}/records"))
    }
}

/// A request the SDK's source makes: its method and its path, each interpolation a segment that
/// stands for a path parameter (or for the literals written inside it, such as `"me"`).
struct SDKRequest: CustomStringConvertible {
    enum Segment: Equatable {
        case literal(String)
        case interpolated(literals: [String])
    }

    var method: String
    var segments: [Segment]

    var description: String {
        method + " " + segments.map {
            switch $0 {
            case .literal(let text): "/" + text
            case .interpolated(let literals): "/{" + literals.joined(separator: "|") + "}"
            }
        }.joined()
    }

    /// Whether this call is the operation `"METHOD /path/{param}"`.
    func matches(_ operation: String) -> Bool {
        let parts = operation.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0] == method else { return false }
        let documented = parts[1].split(separator: "/").map(String.init)
        guard documented.count == segments.count else { return false }
        return zip(segments, documented).allSatisfy { segment, part in
            switch segment {
            case .literal(let text): text == part
            case .interpolated(let literals): part.hasPrefix("{") || literals.contains(part)
            }
        }
    }
}

enum SDKRequests {
    static func read(from directory: URL) throws -> [SDKRequest] {
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil).filter { $0.pathExtension == "swift" }
        return try files.flatMap { scan(try String(contentsOf: $0, encoding: .utf8)) }
    }

    /// Every `send(.METHOD, "…"` (and `download(.METHOD, "…"`, an export's) in `source`.
    static func scan(_ source: String) -> [SDKRequest] {
        source.matches(of: /(?:send|download)\(\s*\.([A-Z]+),\s*"/).compactMap { match in
            guard let path = stringLiteral(in: source[match.range.upperBound...]) else { return nil }
            return SDKRequest(method: String(match.1), segments: path)
        }
    }

    /// The path segments of the string literal whose body starts `text`, up to its closing quote.
    private static func stringLiteral(in text: Substring) -> [SDKRequest.Segment]? {
        var segments: [SDKRequest.Segment] = []
        var current = ""
        var index = text.startIndex
        func endSegment() {
            if !current.isEmpty { segments.append(.literal(current)) }
            current = ""
        }
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" {
                endSegment()
                return segments
            } else if character == "\\", text[text.index(after: index)...].hasPrefix("(") {
                // An interpolation runs to its matching parenthesis; string literals inside it
                // (`?? "me"`) are the literal segments it may stand for.
                var depth = 0
                var cursor = text.index(after: index)
                var literals: [String] = []
                while cursor < text.endIndex {
                    let inner = text[cursor]
                    if inner == "(" { depth += 1 }
                    if inner == ")" { depth -= 1; if depth == 0 { break } }
                    if inner == "\"", let close = text[text.index(after: cursor)...].firstIndex(of: "\"") {
                        literals.append(String(text[text.index(after: cursor)..<close]))
                        cursor = close
                    }
                    cursor = text.index(after: cursor)
                }
                guard cursor < text.endIndex, current.isEmpty else { return nil }
                segments.append(.interpolated(literals: literals))
                index = text.index(after: cursor)
                continue
            } else if character == "/" {
                endSegment()
            } else {
                current.append(character)
            }
            index = text.index(after: index)
        }
        return nil
    }
}
