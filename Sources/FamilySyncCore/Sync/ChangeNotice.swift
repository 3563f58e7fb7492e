import Foundation

/// What a write transaction tells long polls (PROTOCOL §6): which family changed, and where.
/// It carries no data: a woken poll reads the database to learn what changed, so a notice may be
/// duplicated, merged or lost (the listener then wakes every poll) without a wrong answer.
public struct ChangeNotice: Sendable, Hashable {
    public enum Subject: Sendable, Hashable {
        /// A zone's records, or the zone itself (made, deleted).
        case zone(String)
        /// A device's status, role or name; a new device (an accepted pairing).
        case device(UUID)
        /// The whole family (deleted).
        case family
    }

    public var familyID: UUID
    public var subject: Subject

    public init(familyID: UUID, subject: Subject) {
        self.familyID = familyID
        self.subject = subject
    }

    public static func zone(_ name: String, of familyID: UUID) -> ChangeNotice { .init(familyID: familyID, subject: .zone(name)) }
    public static func device(_ id: UUID, of familyID: UUID) -> ChangeNotice { .init(familyID: familyID, subject: .device(id)) }
    public static func family(_ familyID: UUID) -> ChangeNotice { .init(familyID: familyID, subject: .family) }

    /// `<family>|zone|<name>`, `<family>|device|<id>` or `<family>|family`: small (PostgreSQL
    /// allows 8000 bytes) and identical for the same change, so that a transaction touching a
    /// zone many times sends one notification (PostgreSQL folds duplicates).
    public var payload: String {
        let family = familyID.lowercased
        switch subject {
        case .zone(let name): return "\(family)|zone|\(name)"
        case .device(let id): return "\(family)|device|\(id.lowercased)"
        case .family: return "\(family)|family"
        }
    }

    public init?(payload: String) {
        let parts = payload.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let familyID = UUID(uuidString: String(parts[0])) else { return nil }
        switch (parts[1], parts.count) {
        case ("family", 2):
            subject = .family
        case ("zone", 3) where !parts[2].isEmpty:
            subject = .zone(String(parts[2]))
        case ("device", 3):
            guard let id = UUID(uuidString: String(parts[2])) else { return nil }
            subject = .device(id)
        default:
            return nil
        }
        self.familyID = familyID
    }

    /// Whether a poll of `device` should look: the change is in its family and something it can
    /// see. Parents see every zone and device; an active child its own zone, its member's zone, the
    /// `family` zone and itself; a device awaiting confirmation only itself.
    public func concerns(_ device: AuthenticatedDevice) -> Bool {
        guard device.familyID == familyID else { return false }
        switch subject {
        case .family:
            return true
        case .device(let id):
            return id == device.deviceID || (device.role == .parent && device.status == .active)
        case .zone(let name):
            guard device.status == .active else { return false }
            return device.role == .parent || name == "family" || name == device.zoneName
                || device.memberID.map { name == Member.zoneName(of: $0) } == true
        }
    }
}
