import FamilySyncCore
import PostgresNIO

/// A Codable value bound and read as jsonb: PostgresNIO encodes it into the binary jsonb format
/// and decodes it from there, so no JSON text passes through Swift strings on the way.
struct JSONB<Value: Codable & Sendable>: Codable, Sendable, PostgresCodable, PostgresArrayEncodable, PostgresArrayDecodable {
    var value: Value

    init(_ value: Value) { self.value = value }

    /// Fields and JSON values (records read into values, a heartbeat's answer) are read in one pass
    /// (`JSONValue(onePass:)`); what that reader leaves, and any other value, by PostgresNIO's
    /// JSON decoder, as before. Foundation's decoder into `JSONValue` was 12 % of the quiet
    /// heartbeat's CPU (Benchmarks/README.md, "A connection on its loop").
    init<Decoder: PostgresJSONDecoder>(from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat, context: PostgresDecodingContext<Decoder>) throws {
        var text = buffer
        switch (format, type) {
        case (.binary, .jsonb):
            guard text.readInteger(as: UInt8.self) == 1 else { throw PostgresDecodingError.Code.failure }
        case (.binary, .json), (.text, .jsonb), (.text, .json): break
        default: throw PostgresDecodingError.Code.typeMismatch
        }
        if let value = Self.onePass(text) {
            self.value = value
            return
        }
        self = try context.jsonDecoder.decode(Self.self, from: text)
    }

    private static func onePass(_ text: ByteBuffer) -> Value? {
        guard Value.self == [String: JSONValue].self || Value.self == JSONValue.self else { return nil }
        guard let json = text.withUnsafeReadableBytes({ JSONValue(onePass: $0) }) else { return nil }
        if let value = json as? Value { return value }
        return json.objectValue as? Value
    }

    init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(Value.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    static var psqlArrayType: PostgresDataType { .jsonbArray }

    /// Binary jsonb: its version byte, then the text. Fields and JSON values (every record write
    /// binds them) are written by `JSONText`; anything else by PostgresNIO's JSON encoder.
    func encode<Encoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<Encoder>) throws {
        byteBuffer.writeInteger(UInt8(1))
        if let fields = value as? [String: JSONValue] {
            JSONText.append(.object(fields)) { byteBuffer.writeBytes($0) }
        } else if let json = value as? JSONValue {
            JSONText.append(json) { byteBuffer.writeBytes($0) }
        } else {
            try context.jsonEncoder.encode(self, into: &byteBuffer)
        }
    }
}

/// A record's fields as the `fields` column holds them.
typealias RecordFields = JSONB<[String: JSONValue]>

extension PostgresBindings {
    /// A client's value (a query's filter or cursor key) as jsonb; one that cannot be encoded is
    /// the client's error.
    mutating func appendJSONB(_ value: JSONValue) throws(FamilySyncError) {
        do {
            try append(JSONB(value))
        } catch {
            throw .badRequest("The value cannot be encoded.")
        }
    }
}
