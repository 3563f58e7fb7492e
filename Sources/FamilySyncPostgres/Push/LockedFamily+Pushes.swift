import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

extension LockedFamily {
    /// New alerts (§9.4), written into their members' zones by `device` for the server; each
    /// tells the family's parents with a visible notification (§12): what an endpoint reports (a
    /// threshold alert) or a job finds (a tracking alert); budget alerts are derived (`Alert.budgetDerivation`).
    public func raise(_ alerts: [Alert], by device: UUID, role: WriterRole = .server, now: Date) async throws {
        for (zone, alerts) in Dictionary(grouping: alerts, by: { Member.zoneName(of: $0.memberID) }).sorted(by: { $0.key < $1.key }) {
            try await commit(alerts.map { $0.record(by: device, role: role) }, into: zone)
        }
        pendingPushes?.add(alerts)
    }

    /// The outbox rows of this transaction's changes and alerts: a background push to each
    /// registered device a change concerns (§6's rule), unless it wrote the change or holds a poll
    /// now (the poll tells it), merged into the one it has waiting; a visible notification of each
    /// alert to each active parent device. Senders are notified on commit.
    func queuePushes() async throws {
        guard let pendingPushes else { return }
        let (changes, alerts) = pendingPushes.take()
        guard !changes.isEmpty || !alerts.isEmpty else { return }
        let now = pendingPushes.outbox.clock.now()
        let rows = try await connection.rows(
            """
            SELECT d.device_id, d.role, d.status, d.member_id, d.tracked, coalesce(t.poll_held_until > \(now), false)
            FROM device_push_tokens t JOIN devices d ON d.family_id = t.family_id AND d.device_id = t.device_id
            WHERE t.family_id = \(id)
            """,
            logger: logger
        ).map { row -> (AuthenticatedDevice, Bool)? in
            let (device, role, status, member, tracked, polling) = try row.decode((UUID, String, String, UUID?, Bool, Bool).self)
            guard let role = DeviceRole(rawValue: role), let status = DeviceStatus(rawValue: status) else { return nil }
            return (AuthenticatedDevice(familyID: id, deviceID: device, role: role, status: status, memberID: member, tracked: tracked), polling)
        }.compactMap { $0 }
        let plan = BackgroundPush.plan(changes: changes.map { ($0.writer, $0.notice) }, registered: rows.map { ($0.0, polling: $0.1) })
        var targets = plan.background
        let parents = plan.alertRecipients
        guard !targets.isEmpty || (!alerts.isEmpty && !parents.isEmpty) else { return }
        if !targets.isEmpty {
            let devices = targets.keys.sorted { $0.uuidString < $1.uuidString }
            // The zones of a row waiting for a device are merged here, not in the conflict action:
            // Citus refuses a function that is not IMMUTABLE in `DO UPDATE SET`
            // (`ImmutableUpsertTests`). The family's lock keeps any other writer of these rows out
            // until commit; a sender only deletes a row it sent (then this one is new, with zones
            // already pushed: one push more, never one less) or sets its claim.
            let waiting = try await connection.rows(
                "SELECT device_id, payload FROM push_outbox WHERE family_id = \(id) AND kind = 'background' AND device_id = ANY(\(devices))",
                logger: logger
            )
            for row in waiting {
                let (device, payload) = try row.decode((UUID, RecordFields).self)
                guard case .array(let zones)? = payload.value["zones"] else { continue }
                targets[device]?.formUnion(zones.compactMap { if case .string(let zone) = $0 { zone } else { nil } })
            }
            let contents = devices.map { RecordFields(["zones": .array(targets[$0]!.sorted().map(JSONValue.string))]) }
            try await insertOutbox(zip(devices, contents).map { $0 }, kind: .background, now: now)
        }
        if !alerts.isEmpty && !parents.isEmpty {
            let pairs = parents.flatMap { parent in alerts.map { (parent, RecordFields(AlertPush.content(of: $0))) } }
            try await insertOutbox(pairs, kind: .alert, now: now)
        }
        try await connection.rows("SELECT pg_notify(\(PushOutbox.channel), \(ChangeNotice.family(id).payload))", logger: logger)
    }

    /// Outbox rows, one per device and payload, in one statement of `VALUES`: Citus routes it to
    /// the family's shard. Read from `unnest`, even joined to the family's row (rule 8), it pulled
    /// the rows through the coordinator and committed in two phases, because `push_id` comes from
    /// a sequence (docs/operations.md, Citus rule 8). A background push replaces the one waiting
    /// for its device (merged by the caller); alerts each wait on their own.
    private func insertOutbox(_ rows: [(device: UUID, payload: RecordFields)], kind: PushDelivery.Kind, now: Date) async throws {
        var bindings = PostgresBindings()
        bindings.append(id)
        bindings.append(kind.rawValue)
        bindings.append(now)
        bindings.append(now.addingTimeInterval(kind == .background ? BackgroundPush.lifetime : AlertPush.lifetime))
        var values: [String] = []
        for row in rows {
            bindings.append(row.device)
            try bindings.append(row.payload)
            values.append("($1, $\(bindings.count - 1), $2, $\(bindings.count), $3, $3, $4)")
        }
        try await connection.rows(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO push_outbox (family_id, device_id, kind, payload, created_at, not_before, expires_at)
                    VALUES \(values.joined(separator: ", "))
                    \(kind == .background ? """
                        ON CONFLICT (family_id, device_id) WHERE kind = 'background' DO UPDATE SET
                            payload = EXCLUDED.payload, expires_at = EXCLUDED.expires_at, version = push_outbox.version + 1
                        """ : "")
                    """,
                binds: bindings
            ),
            logger: logger
        )
    }
}
