import FamilySyncCore
import Foundation
import NIOCore
import PostgresNIO

/// jsonb's binary form on the wire: a version byte (1), then the value's text.
struct JSONBText: PostgresDecodable {
    var text: ByteBuffer

    init<JSONDecoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat, context: PostgresDecodingContext<JSONDecoder>
    ) throws {
        switch (format, type) {
        case (.binary, .jsonb):
            guard buffer.readInteger(as: UInt8.self) == 1 else { throw PostgresDecodingError.Code.failure }
            text = buffer.slice()
        case (.text, .jsonb), (_, .json):
            text = buffer.slice()
        default:
            throw PostgresDecodingError.Code.typeMismatch
        }
    }
}
