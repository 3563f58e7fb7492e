import FamilySyncCore
import Foundation
import Synchronization

/// The devices this instance authenticated lately: each one's credential hash and what a request
/// needs of it, so that a device's requests need not read `devices` each time, and when this
/// instance last wrote its `lastSeenAt` and `lastSyncAt`.
///
/// Revocation is not weakened. An entry is trusted only while the change listener is subscribed,
/// and every change to a device (status, member, credential, the family deleted) sends a notice
/// that drops its entries on every instance: the notice that answers the device's held polls 401
/// (§6). The instance that made the change drops them itself once it commits, before it answers.
/// A read that raced a change is not kept (the epoch moved meanwhile). An entry lasts until the
/// device's `lastSeenAt` is due again, so a device still costs one read of `devices` a minute.
public final class KnownDevices: Sendable {
    struct Key: Hashable {
        let familyID: UUID
        let deviceID: UUID
    }

    struct Entry {
        let hash: [UInt8]
        let device: AuthenticatedDevice
        /// When `lastSeenAt` is due a write again; the entry is not used from then.
        let expiresAt: Date
        /// The last `lastSyncAt` this instance wrote.
        var syncMarkedAt: Date?
    }

    struct State {
        var entries: [Key: Entry] = [:]
        /// Moves with every invalidation: a read that began before it is not kept.
        var epoch: UInt64 = 0
        /// Whether notices arrive (the listener is subscribed).
        var listening = false
    }

    /// Past this many entries, all are dropped (they come back on the next request of each device).
    let capacity: Int
    private let state = Mutex(State())

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// The device a credential stands for, if this instance knows it now.
    func device(for credential: DeviceCredential, now: Date) -> AuthenticatedDevice? {
        let key = Key(familyID: credential.familyID, deviceID: credential.deviceID)
        guard let entry = state.withLock({ $0.listening ? $0.entries[key] : nil }), entry.expiresAt > now,
            constantTimeEquals(entry.hash, credential.hash)
        else { return nil }
        return entry.device
    }

    /// To pass to `remember` after a read: nil while nothing may be kept.
    var epoch: UInt64? {
        state.withLock { $0.listening ? $0.epoch : nil }
    }

    /// Keeps what a read of `devices` that began at `epoch` found, unless something changed since.
    func remember(_ device: AuthenticatedDevice, hash: [UInt8], seenAt: Date, epoch: UInt64?) {
        guard let epoch else { return }
        let key = Key(familyID: device.familyID, deviceID: device.deviceID)
        state.withLock { state in
            guard state.listening, state.epoch == epoch else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            let previous = state.entries[key]?.syncMarkedAt
            state.entries[key] = Entry(hash: hash, device: device, expiresAt: seenAt.addingTimeInterval(PostgresDeviceStore.lastSeenGranularity), syncMarkedAt: previous)
        }
    }

    /// Whether this instance wrote the device's `lastSyncAt` within `granularity` of `now`.
    func syncMarkedRecently(familyID: UUID, deviceID: UUID, now: Date, granularity: TimeInterval) -> Bool {
        state.withLock { state in
            guard state.listening, let marked = state.entries[Key(familyID: familyID, deviceID: deviceID)]?.syncMarkedAt else { return false }
            return now.timeIntervalSince(marked) < granularity
        }
    }

    func syncMarked(familyID: UUID, deviceID: UUID, at now: Date) {
        state.withLock { $0.entries[Key(familyID: familyID, deviceID: deviceID)]?.syncMarkedAt = now }
    }

    /// Drops what the notices change: a device's entry, or every entry of a deleted family.
    public func invalidate(_ notices: some Sequence<ChangeNotice>) {
        let devices = notices.filter { if case .zone = $0.subject { false } else { true } }
        guard !devices.isEmpty else { return }
        state.withLock { state in
            state.epoch &+= 1
            for notice in devices {
                switch notice.subject {
                case .device(let id):
                    state.entries[Key(familyID: notice.familyID, deviceID: id)] = nil
                case .family:
                    state.entries = state.entries.filter { $0.key.familyID != notice.familyID }
                case .zone:
                    break
                }
            }
        }
    }

    /// The listener is subscribed: notices arrive from now on, and those sent before were lost.
    public func listenerDidConnect() {
        reset(listening: true)
    }

    /// Notices may be lost from now on: nothing is trusted until the listener is back.
    public func listenerDidDisconnect() {
        reset(listening: false)
    }

    private func reset(listening: Bool) {
        state.withLock { state in
            state.entries.removeAll()
            state.epoch &+= 1
            state.listening = listening
        }
    }

    /// Whether a device's entry is kept and trusted now (for tests).
    public func knows(familyID: UUID, deviceID: UUID) -> Bool {
        state.withLock { $0.listening && $0.entries[Key(familyID: familyID, deviceID: deviceID)] != nil }
    }
}
