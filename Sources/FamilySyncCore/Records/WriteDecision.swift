import Foundation

/// One operation of `records/modify` (PROTOCOL §5.3), as the server decides it.
public struct RecordWrite: Sendable {
    public var type: RecordOperationType
    public var recordName: String
    public var recordType: String?
    public var fields: [String: JSONValue]?
    public var changeTag: String?
    public var clientModifiedAt: Date?
    /// Where the operation sits in the request, for `field` paths: `operations[3]`.
    public var path: String

    public init(type: RecordOperationType, recordName: String, recordType: String?, fields: [String: JSONValue]?, changeTag: String?, clientModifiedAt: Date?, path: String) {
        self.type = type
        self.recordName = recordName
        self.recordType = recordType
        self.fields = fields
        self.changeTag = changeTag
        self.clientModifiedAt = clientModifiedAt
        self.path = path
    }
}

/// What a saved write did to its record (`outcome` in modify results).
public enum WriteOutcome: String, Sendable, Equatable {
    case created, updated, deleted
}

/// What one write does to the stored record, per PROTOCOL §5.3–§5.4: the record to store, or why
/// not (with the server's record where a conflict hands it back). Pure: the store reads the
/// stored record under the family's lock, asks here, and writes what stands.
public enum WriteDecision {
    public struct Failure: Error, Sendable {
        public var error: FamilySyncError
        public var serverRecord: Record?
    }

    public static func decide(
        _ operation: RecordWrite, stored: Record?, caller: AuthenticatedDevice, zoneKind: RecordSchema.ZoneKind, now: Date
    ) throws(Failure) -> (record: Record, outcome: WriteOutcome, incomingWon: Bool) {
        func fail(_ error: FamilySyncError, _ server: Record? = nil) -> Failure { Failure(error: error, serverRecord: server) }
        let path = operation.path
        let live = stored.flatMap { $0.deleted ? nil : $0 }
        let type = operation.recordType ?? stored?.recordType
        guard let type else {
            throw fail(.badRequest("recordType is required.", field: "\(path).record.recordType"))
        }
        if let stored, let given = operation.recordType, given != stored.recordType {
            throw fail(.badRequest("The record is a \(stored.recordType), not a \(given).", field: "\(path).record.recordType"))
        }
        do {
            try RecordSchema.checkWrite(
                type: type, zone: zoneKind, role: caller.role, operation: operation.type, recordName: operation.recordName, field: "\(path).record.recordType"
            )
        } catch {
            throw fail(error)
        }
        if operation.type.needsChangeTag, operation.changeTag == nil {
            throw fail(.badRequest("\(operation.type.rawValue) needs the record's recordChangeTag.", field: "\(path).record.recordChangeTag"))
        }
        let stamp = ConflictResolver.clamp(
            WriteStamp(clientModifiedAt: operation.clientModifiedAt ?? now, role: caller.role, deviceID: caller.deviceID), serverNow: now
        )

        // Conflicts: a stale tag on a record that exists (or existed: tombstones keep their stamp).
        var incomingWon = false
        switch operation.type {
        case .create:
            if let live { throw fail(FamilySyncError(.exists, "A record named '\(operation.recordName)' exists."), live) }
        case .update, .replace, .delete:
            guard let stored else { throw fail(.notFound("No record named '\(operation.recordName)'.")) }
            if operation.changeTag == stored.changeTag {
                if stored.deleted { throw fail(.notFound("The record '\(operation.recordName)' was deleted.")) }
            } else {
                guard !RecordSchema.isCustom(type), ConflictResolver.incomingWins(incoming: stamp, stored: stored.stamp) else {
                    throw fail(FamilySyncError(.conflict, "The record changed since its tag was read."), stored)
                }
                incomingWon = true
            }
        case .forceUpdate, .forceReplace:
            break
        case .forceDelete:
            if live == nil { throw fail(.notFound("No record named '\(operation.recordName)'.")) }
        }

        var fields: [String: JSONValue]
        if operation.type.isDelete {
            fields = stored?.fields ?? [:]
        } else if operation.type.merges, let base = stored?.fields {
            fields = base
            for (name, value) in operation.fields ?? [:] { fields[name] = value == .null ? nil : value }
        } else {
            fields = (operation.fields ?? [:]).filter { $0.value != .null }
        }
        if !operation.type.isDelete {
            do {
                try RecordSchema.validate(type: type, fields: fields, recordName: operation.recordName, field: "\(path).record.fields")
            } catch {
                throw fail(error)
            }
            let size = RecordSchema.serializedSize(of: fields)
            guard size <= RecordSchema.maximumFieldsBytes else {
                throw fail(.limitExceeded("The record's fields are \(size) bytes; the limit is \(RecordSchema.maximumFieldsBytes).", field: "\(path).record.fields"))
            }
        }
        let isNew = live == nil && !operation.type.isDelete
        let record = Record(
            recordName: operation.recordName, recordType: type, fields: fields, changeTag: "", deleted: operation.type.isDelete,
            createdAt: isNew ? now : stored?.createdAt ?? now, createdBy: isNew ? caller.deviceID : stored?.createdBy ?? caller.deviceID,
            modifiedAt: now, modifiedBy: caller.deviceID, modifiedRole: WriterRole(caller.role), clientModifiedAt: stamp.clientModifiedAt
        )
        let outcome: WriteOutcome = operation.type.isDelete ? .deleted : (isNew ? .created : .updated)
        return (record, outcome, incomingWon)
    }
}
