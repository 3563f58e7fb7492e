import FamilySyncCore
import Foundation
import Logging
import PostgresNIO
import Synchronization

extension LockedFamily {
    enum Target {
        case named(String)
        case read(Zone)

        var name: String {
            switch self {
            case .named(let name): name
            case .read(let zone): zone.name
            }
        }
    }

    public struct Commit: Sendable {
        /// As written, change tags set: the records given, then the derived ones (of every zone).
        public var records: [Record]
        public var derivedCount: Int
        /// The family's sequence after the commit (each written zone's `changed_seq`).
        public var sequence: Int64

        public var derived: ArraySlice<Record> { records.suffix(derivedCount) }
    }

    /// The records given, and every record their types derive (`RecordTypeRegistry`) and those
    /// derive in turn, each into its zone: numbered from the family's sequence in that order, the
    /// zones written advanced, their polls told. A derived `Alert` also tells the family's parents
    /// (§12).
    func commit(
        _ records: [Record], into target: Target, derivingIn timeZone: TimeZone?, categoryKinds: CategoryKinds? = nil, facts: [Record] = []
    ) async throws -> Commit {
        let derived = try await derivations(of: records + facts, in: target, timeZone: timeZone, categoryKinds: categoryKinds)
        let all = records.map { Derivation.Derived($0, into: target.name) } + derived
        guard !all.isEmpty else { return Commit(records: [], derivedCount: 0, sequence: sequenceAtLock) }
        let count = Int64(all.count)
        let last = try await advance(by: count)
        let first = last - count + 1
        var written: [(record: Record, sequence: Int64)] = []
        for (offset, item) in all.enumerated() {
            var record = item.record
            record.changeTag = String(first + Int64(offset), radix: 36)
            written.append((record, first + Int64(offset)))
        }
        // Only the zones written into change (facts alone write nothing in their own zone).
        var zones: [String] = []
        for item in all where !zones.contains(item.zone) { zones.append(item.zone) }
        for zone in zones {
            try await write(zip(all, written).filter { $0.0.zone == zone }.map(\.1), into: zone)
        }
        try await connection.rows("UPDATE zones SET changed_seq = \(last) WHERE family_id = \(id) AND zone_name = ANY(\(zones))", logger: logger)
        // The writer (or the device a fact is of) is not pushed what it wrote (§12).
        try await publish(zones.map { .zone($0, of: id) }, writer: (records + facts).first?.modifiedBy)
        // A parent's (or the server's) change to a child's rules goes in the audit log (§15.4);
        // what retention removes is the family's own setting carried out, not a change of rules.
        if auditing, let time = records.first?.modifiedAt { try await audit(AuditRules.entries(for: records, by: actor), at: time, inZone: target.name) }
        let alerts = derived.filter { $0.record.recordType == RecordTypeName.alert }.compactMap { Alert(fields: $0.record.fields) }
        if !alerts.isEmpty { pendingPushes?.add(alerts) }
        return Commit(records: written.map(\.record), derivedCount: derived.count, sequence: last)
    }

    /// Commits what `facts` derive (`HealthDay`'s, say): the facts themselves are not stored.
    @discardableResult
    func derive(from facts: [Record], in zoneName: String) async throws -> Commit {
        try await commit([], into: .named(zoneName), derivingIn: nil, facts: facts)
    }

    /// What the written records derive, level by level: each level from the zones as they are
    /// before this write. A chain ends where a type derives nothing (at most a few levels: the
    /// registry's chains are acyclic, `RecordTypeRegistryTests`).
    private func derivations(of records: [Record], in target: Target, timeZone: TimeZone?, categoryKinds known: CategoryKinds?) async throws -> [Derivation.Derived] {
        var pending: [(zone: String, records: [Record])] = [(target.name, records)]
        var contexts: [String: DerivationContext] = [:]
        var kinds = known
        var derived: [Derivation.Derived] = []
        while !pending.isEmpty {
            let (zoneName, batch) = pending.removeFirst()
            let live = batch.filter { !$0.deleted }
            let due = Dictionary(grouping: live, by: \.recordType).flatMap { type, written in
                RecordTypeRegistry.derivations(from: type).map { (type: type, derivation: $0, written: written) }
            }.sorted { $0.type < $1.type }
            guard !due.isEmpty, let writer = live.first else { continue }
            var context: DerivationContext
            if let known = contexts[zoneName] {
                context = known
            } else {
                let zone: Zone
                if case .read(let read) = target, read.name == zoneName { zone = read } else { zone = try await self.zone(zoneName) }
                let owner = try await zone.childDeviceID.asyncMap { try await self.owner(of: $0) }
                if kinds == nil { kinds = try await categoryKinds() }
                let local = (zoneName == target.name ? timeZone : nil) ?? owner?.timeZone ?? .gmt
                context = DerivationContext(zone: zone, writer: writer.modifiedBy, timeZone: local, now: writer.modifiedAt, categoryKinds: kinds ?? CategoryKinds(), owner: owner)
                contexts[zoneName] = context
            }
            context.writer = writer.modifiedBy
            context.now = writer.modifiedAt
            var level: [Derivation.Derived] = []
            for (_, derivation, written) in due {
                var plan = derivation.plan(written, context)
                while true {
                    var stored: [StoredRecord] = []
                    for query in plan.reads { stored += try await read(query, in: zoneName) }
                    switch plan.next(stored) {
                    case .derived(let records):
                        level += records
                    case .read(let next):
                        plan = next
                        continue
                    }
                    break
                }
            }
            derived += level
            var byZone: [String: [Record]] = [:]
            for item in level { byZone[item.zone, default: []].append(item.record) }
            pending += byZone.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
        return derived
    }

    /// The device a zone belongs to, with its member's devices that have zones of their own, in
    /// one read: what derivations and uploads know of a device's days.
    func owner(of deviceID: UUID) async throws -> ZoneOwner {
        if let known = owners.owner(of: deviceID) { return known }
        let rows = try await connection.rows(
            """
            SELECT d.name, d.time_zone, d.member_id, m.device_id, m.platform, z.zone_name
            FROM devices d
            LEFT JOIN devices m ON m.family_id = d.family_id AND m.member_id = d.member_id
            LEFT JOIN zones z ON z.family_id = m.family_id AND z.child_device_id = m.device_id AND z.deleted_at IS NULL
            WHERE d.family_id = \(id) AND d.device_id = \(deviceID)
            ORDER BY m.registered_at, m.device_id
            """,
            logger: logger
        ).decode((String, String, UUID?, UUID?, String?, String?).self)
        guard let (name, timeZone, member, _, _, _) = rows.first else { throw FamilySyncError.notFound("No such device.") }
        let devices = rows.compactMap { _, _, _, device, platform, zone in
            device.flatMap { device in zone.map { ZoneOwner.MemberDevice(deviceID: device, platform: DevicePlatform(rawValue: platform ?? "") ?? .other, zoneName: $0) } }
        }
        let owner = ZoneOwner(deviceID: deviceID, deviceName: name, timeZoneName: timeZone, memberID: member, memberDevices: devices)
        owners.keep(owner)
        return owner
    }

    /// Records a derivation asks for, as much of them as it reads: of the zone written unless the
    /// query names others.
    func read(_ query: StoredRecordQuery, in zoneName: String) async throws -> [StoredRecord] {
        func stored(_ row: PostgresRow) throws -> StoredRecord {
            let cells = row.makeRandomAccess()
            return StoredRecord(
                recordName: try cells["record_name"].decode(String.self), recordType: try cells["record_type"].decode(String.self),
                fields: try cells["fields"].decode(RecordFields.self).value, createdAt: try cells["created_at"].decode(Date.self),
                zoneName: try cells["zone_name"].decode(String.self), deleted: try cells["deleted"].decode(Bool.self)
            )
        }
        let columns = "record_name, record_type, fields, created_at, zone_name, deleted"
        switch query {
        case .named(let names):
            return try await read(.namedIn(zones: [zoneName], names: names), in: zoneName)
        case .namedIn(let zones, let names, let includingDeleted):
            guard !zones.isEmpty, !names.isEmpty else { return [] }
            return try await connection.rows(
                """
                SELECT \(unescaped: columns) FROM records
                WHERE family_id = \(id) AND zone_name = ANY(\(zones)) AND record_name = ANY(\(names)) AND (\(includingDeleted) OR NOT deleted)
                """,
                logger: logger
            ).map(stored)
        case .ofType(let type, let zone):
            return try await connection.rows(
                "SELECT \(unescaped: columns) FROM records WHERE family_id = \(id) AND zone_name = \(zone) AND record_type = \(type) AND NOT deleted", logger: logger
            ).map(stored)
        case .overlapping(let type, let startField, let endField, let interval):
            return try await RecordRow.overlapping(type, startField: startField, endField: endField, interval: interval, inZone: zoneName, family: id, on: connection, logger: logger)
                .map(stored)
        }
    }
}

extension Optional {
    /// `map` for an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
