import Foundation

extension Command {
    /// The `AppConfiguration` records a command carries (the seeds' sendConfigurationToChild):
    /// each replaces the zone's record of the same `logicalID` in `existing` (a tombstone is made
    /// anew), or is a new record `config-<uuid>`.
    public static func configurationRecords(
        _ configuration: [[String: JSONValue]], existing: [String: Record], by parent: AuthenticatedDevice, at now: Date
    ) throws(FamilySyncError) -> [Record] {
        try configuration.enumerated().map { index, fields throws(FamilySyncError) in
            guard case .string(let id)? = fields["logicalID"] else {
                throw .badRequest("logicalID is required.", field: "configuration[\(index)].logicalID")
            }
            let stored = existing[id]
            return Record(
                recordName: stored?.recordName ?? "config-\(UUID().lowercased)", recordType: RecordTypeName.appConfiguration, fields: fields, changeTag: "",
                deleted: false, createdAt: stored.map { $0.deleted ? now : $0.createdAt } ?? now, createdBy: stored?.createdBy ?? parent.deviceID,
                modifiedAt: now, modifiedBy: parent.deviceID, modifiedRole: WriterRole(parent.role), clientModifiedAt: now
            )
        }
    }

    /// The `logicalID`s the configuration names, for reading the records it replaces.
    public static func logicalIDs(of configuration: [[String: JSONValue]]) -> [String] {
        configuration.compactMap { fields in if case .string(let id)? = fields["logicalID"] { id } else { nil } }
    }
}
