import FamilySyncCore
import FamilySyncProtocol

/// What became of one record sent with `FamilySyncClient.save(_:in:)`.
public enum RecordSaveOutcome: Sendable, Equatable {
    /// Written (`outcome` says created, updated or deleted; `resolution` says when it won a conflict).
    case saved(RecordBody)
    /// The stored record won the conflict (PROTOCOL §5.4): here it is, to merge and save again
    /// with its change tag, as with CloudKit's `serverRecordChanged`.
    case conflict(serverRecord: RecordBody, error: FamilySyncError)
    /// Refused for another reason (`EXISTS`, a bad field, …).
    case failed(FamilySyncError)
}

extension FamilySyncClient {
    /// Sends the operations with `atomic: false`, so that each record stands alone and a conflict
    /// on one does not hold back the others, and answers one outcome per operation, in order.
    public func save(_ operations: [RecordOperation], in zone: String, idempotencyKey: String? = nil) async throws(FamilySyncError) -> [RecordSaveOutcome] {
        let answer = try await modify(zone, ModifyRecordsRequest(operations: operations, atomic: false), idempotencyKey: idempotencyKey)
        return answer.records.map { result in
            if let record = result.record { return .saved(record) }
            let error = result.error.map { ErrorResponse(error: $0).familySyncError }
                ?? FamilySyncError(.internalError, "The server answered neither a record nor an error for \(result.recordName).")
            if let server = result.serverRecord, error.code == .conflict { return .conflict(serverRecord: server, error: error) }
            return .failed(error)
        }
    }
}
