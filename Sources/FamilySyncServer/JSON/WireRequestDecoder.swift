import FamilySyncCore
import FamilySyncProtocol
import Foundation
import Hummingbird
import NIOCore

/// The request context's decoder: the body read up to the context's limit (counted while it
/// streams, so a chunked body stops being read once past it: 413), then decoded strictly against
/// the members its type declares (`StrictJSON`, PROTOCOL §1); every failure is §1.1's error.
public struct WireRequestDecoder: RequestDecoder {
    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        guard let declared = T.self as? any WireRequestBody.Type else {
            // Every request body declares its members; one that does not is a bug of ours.
            throw FamilySyncError.internalError
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw FamilySyncError.limitExceeded("The request body is larger than the limit of \(context.maxUploadSize) bytes.")
        }
        // The hot paths' bodies in their plain form are read in one pass; anything else, and
        // every other body, the strict way, whose verdict and error are the contract.
        if let onePass = T.self as? any OnePassDecodable.Type,
            let value = buffer.withUnsafeReadableBytes({ bytes in Self.onePass(onePass, bytes) })
        {
            return value as! T
        }
        do {
            return try Self.strict(declared, Data(buffer.readableBytesView)) as! T
        } catch let error as DecodingError {
            // Said here, naming the member: Hummingbird's `Request.decode` would put its own
            // sentence on a DecodingError and drop the path.
            throw FamilySyncError.badRequest(error.reasonForClient, field: error.fieldPath)
        }
    }

    private static func onePass<Value: OnePassDecodable>(_ type: Value.Type, _ bytes: UnsafeRawBufferPointer) -> Value? {
        OnePassJSON.decode(type, from: bytes)
    }

    private static func strict<Value: WireRequestBody>(_ type: Value.Type, _ data: Data) throws -> Value {
        try StrictJSON.decode(type, from: data)
    }
}
