import Foundation

/// A device's day of health as the server computed it from its heartbeats (§10). Not a record: a
/// fact the registry derives records from, shaped as a record that is never stored, so that the
/// change log runs its derivations as it runs a record's: the device's `health` record
/// (`DeviceHealth.derivation`) and the day's tracking alert (`Alert.trackingDerivation`).
public enum HealthDay {
    /// The fact's type, as derivations name their source.
    public static let source = "heartbeat"

    /// The fact of `health`; `recordDue` when the device's `health` record is to be written with it
    /// (`HeartbeatRules.decide`, or the stale detector turning it stale), `checksTracking` when the
    /// day is to be looked at for its tracking alert (a closed gap touched it, or the detector's
    /// tracking pass).
    public static func fact(_ health: DeviceHealth, recordDue: Bool, checksTracking: Bool, at now: Date) -> Record {
        var fields = health.fields
        fields["recordDue"] = .bool(recordDue)
        fields["checksTracking"] = .bool(checksTracking)
        return Record(
            recordName: "heartbeat-\(health.date)", recordType: source, fields: fields, changeTag: "", deleted: false, createdAt: now,
            createdBy: health.deviceID, modifiedAt: now, modifiedBy: health.deviceID, modifiedRole: .server, clientModifiedAt: now
        )
    }

    /// The health and whether its record is due, of a fact; nil for anything else.
    static func read(_ record: Record) -> (health: DeviceHealth, recordDue: Bool, checksTracking: Bool)? {
        guard record.recordType == source, let health = DeviceHealth(fields: record.fields, deviceID: record.createdBy) else { return nil }
        return (health, record.fields["recordDue"] == .bool(true), record.fields["checksTracking"] == .bool(true))
    }
}

extension DeviceHealth {
    /// Heartbeat → `DeviceHealth`: the day whose record is due, as the device's `health` record,
    /// server-written, keeping its creation.
    public static let derivation = Derivation { written, context in
        guard let health = written.compactMap(HealthDay.read).last(where: \.recordDue)?.health else { return .none }
        return Derivation.Plan(reads: [.named([recordName])], into: context.zone.name) { stored in
            let before = stored.first { $0.recordName == recordName }
            return [Record(
                recordName: recordName, recordType: RecordTypeName.deviceHealth, fields: health.fields, changeTag: "", deleted: false,
                createdAt: before?.createdAt ?? context.now, createdBy: health.deviceID, modifiedAt: context.now, modifiedBy: health.deviceID,
                modifiedRole: .server, clientModifiedAt: context.now
            )]
        }
    }
}

extension Alert {
    /// Heartbeat → tracking `Alert` (§10): each day whose heartbeat gaps passed
    /// `HeartbeatRules.trackingAlertMinutes` has one, made once (its id is the device's and the
    /// day's) in the device's member's zone.
    public static let trackingDerivation = Derivation { written, context in
        guard let owner = context.owner, let member = owner.memberID else { return .none }
        let due = written.compactMap(HealthDay.read).filter(\.checksTracking).compactMap { day in
            Alert.tracking(member: member, device: owner.deviceID, deviceName: owner.deviceName, date: day.health.date, gapMinutes: day.health.gapMinutesToday, at: context.now)
        }
        guard !due.isEmpty else { return .none }
        let zone = Member.zoneName(of: member)
        return Derivation.Plan(reads: [.namedIn(zones: [zone], names: due.map(\.recordName), includingDeleted: true)], into: zone) { made in
            let names = Set(made.map(\.recordName))
            return due.filter { !names.contains($0.recordName) }.map { $0.record(by: owner.deviceID) }
        }
    }
}
