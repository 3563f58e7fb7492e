import Foundation

/// The write rules of PROTOCOL §5.2 for `records/modify`, from the record types' declarations in
/// `RecordTypeRegistry`, so that every write is checked the same way.
public enum RecordSchema {
    public enum ZoneKind: Sendable, Hashable {
        /// A tracked device's: `child-<deviceId>`, `device-<deviceId>` ("device" in §5.2)
        case child
        /// `member-<memberId>`
        case member
        /// `family`
        case family
        /// Any other zone a parent made.
        case custom
    }

    /// Largest `fields` of one record, serialised (PROTOCOL §14).
    public static let maximumFieldsBytes = 256 * 1024

    /// The size `maximumFieldsBytes` limits: the fields as Foundation's `JSONEncoder` writes them
    /// by default (sorted keys, `/` escaped), as it has always been counted.
    public static func serializedSize(of fields: [String: JSONValue]) -> Int {
        JSONText.bytes(.object(fields), escapingSlashes: true).count
    }

    /// Custom types: any JSON object, parents only, any zone.
    public static func isCustom(_ type: String) -> Bool { type.hasPrefix("x-") }

    /// Whether `role` may write a record of `type` into a zone of `kind` through `records/modify`
    /// (with `operation` on the record `recordName`, where known).
    public static func checkWrite(
        type: String, zone: ZoneKind, role: DeviceRole, operation: RecordOperationType? = nil, recordName: String? = nil, field: String
    ) throws(FamilySyncError) {
        guard type.utf8.count <= 255, !type.isEmpty else { throw .badRequest("A record type is 1–255 characters.", field: field) }
        if isCustom(type) {
            guard role == .parent else { throw FamilySyncError(.accessDenied, "Only a parent writes custom records.") }
            return
        }
        guard let declared = RecordTypeRegistry.types[type] else {
            throw .badRequest("Unknown record type '\(type.prefix(64))'; custom types start with x-.", field: field)
        }
        switch declared.route {
        case .endpoint(let elsewhere):
            throw FamilySyncError(.accessDenied, "\(type) records are written by \(elsewhere), not through records/modify.")
        case .modify(let writers, let childOperations):
            guard writers.contains(role) else {
                throw FamilySyncError(.accessDenied, "A \(role.rawValue) device may not write \(type) records.")
            }
            if role == .child, let operation, !childOperations.contains(operation) {
                let allowed = RecordOperationType.allCases.filter(childOperations.contains).map(\.rawValue).joined(separator: ", ")
                throw FamilySyncError(.accessDenied, "A child device may \(allowed) \(type) records, not \(operation.rawValue) them.")
            }
        }
        if let recordName, let endpoint = declared.reservedNames[recordName] {
            throw FamilySyncError(.accessDenied, "The \(type) record '\(recordName)' is written by \(endpoint), not through records/modify.")
        }
        guard declared.zones.contains(zone) else {
            throw .badRequest("\(type) records do not belong in this zone.", field: field)
        }
    }

    /// Checks the fields a record of `type` will hold (after an update's merge). Types without
    /// rules of their own (DeviceSettings, x- types) are free-form objects, limited only in size.
    public static func validate(type: String, fields: [String: JSONValue], recordName: String = "", field: String) throws(FamilySyncError) {
        try RecordTypeRegistry.types[type]?.validate?(fields, recordName, field)
    }
}
