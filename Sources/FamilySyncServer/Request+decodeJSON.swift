import FamilySyncCore
import Foundation
import Hummingbird

extension Request {
    /// Reads the body (refusing more than the context's limit with 413) and decodes it as JSON.
    /// Malformed JSON and wrong types become `BAD_REQUEST` naming the field, via `ErrorMiddleware`.
    public func decodeJSON<Value: Decodable>(as type: Value.Type, context: FamilySyncRequestContext) async throws -> Value {
        let buffer = try await body.collect(upTo: context.maxBodyBytes)
        return try JSONDecoder().decode(Value.self, from: Data(buffer.readableBytesView))
    }
}
