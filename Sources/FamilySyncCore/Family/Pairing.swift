import Foundation

public enum PairingStatus: String, Sendable, Codable, CaseIterable {
    case pending, accepted, confirmed, rejected, expired, revoked, burned
}

/// An invitation into a family (PROTOCOL §3).
public struct Pairing: Sendable, Equatable {
    public var id: UUID
    public var familyID: UUID
    public var role: DeviceRole
    public var childName: String?
    /// As stored; `status(at:)` adds expiry.
    public var storedStatus: PairingStatus
    public var createdBy: UUID
    public var deviceID: UUID?
    public var verificationEmoji: [String]?
    public var createdAt: Date
    public var expiresAt: Date
    /// The member the device joins (a second device of a person); nil: a new member, named after
    /// `childName` or the device, when a parent confirms it (§8).
    public var memberID: UUID?

    public init(
        id: UUID, familyID: UUID, role: DeviceRole, childName: String?, storedStatus: PairingStatus, createdBy: UUID,
        deviceID: UUID?, verificationEmoji: [String]?, createdAt: Date, expiresAt: Date, memberID: UUID? = nil
    ) {
        self.id = id
        self.familyID = familyID
        self.role = role
        self.childName = childName
        self.storedStatus = storedStatus
        self.createdBy = createdBy
        self.deviceID = deviceID
        self.verificationEmoji = verificationEmoji
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.memberID = memberID
    }

    /// A pending or accepted pairing whose time has run out reads as `expired`; the other states are final.
    public func status(at now: Date) -> PairingStatus {
        switch storedStatus {
        case .pending, .accepted: now >= expiresAt ? .expired : storedStatus
        default: storedStatus
        }
    }

    /// Wrong tokens a pairing takes before it is burned (PROTOCOL §14).
    public static let maximumTokenAttempts = 5
    public static let ttlRange = 60...86_400
    public static let defaultTTLSeconds = 600
}

extension Pairing {
    /// A parent's decision on a pairing (PROTOCOL §3.3–§3.4).
    public enum Decision: String, Sendable, CaseIterable {
        case confirm, reject, revoke

        /// The status a pairing must have for the decision: an accepted one is confirmed or
        /// rejected, a pending one revoked.
        public var requiredStatus: PairingStatus { self == .revoke ? .pending : .accepted }

        public var resultingStatus: PairingStatus {
            switch self {
            case .confirm: .confirmed
            case .reject: .rejected
            case .revoke: .revoked
            }
        }

        var pastTense: String {
            switch self {
            case .confirm: "confirmed"
            case .reject: "rejected"
            case .revoke: "revoked"
            }
        }
    }

    /// The pairing after `decision` at `now`; `PAIRING_EXPIRED` once its time ran out, `CONFLICT`
    /// from any other status than the one the decision needs. What it does to the device (activate
    /// it, give a child its zone, or revoke it) follows from the result.
    public func deciding(_ decision: Decision, at now: Date) throws(FamilySyncError) -> Pairing {
        let status = status(at: now)
        let required = decision.requiredStatus
        guard status == required else {
            if status == .expired {
                throw FamilySyncError(.pairingExpired, "This pairing expired at \(expiresAt); ask for a new QR code.")
            }
            throw FamilySyncError(.conflict, "This pairing is \(status.rawValue); only a\(required == .accepted ? "n accepted" : " pending") one can be \(decision.pastTense).")
        }
        var decided = self
        decided.storedStatus = decision.resultingStatus
        return decided
    }

    /// A token presented for this pairing: `PAIRING_EXPIRED` unless it is still pending. Whether the
    /// token matches is the store's to check (in constant time, against the stored hash).
    public func checkAcceptable(at now: Date) throws(FamilySyncError) {
        guard status(at: now) == .pending else {
            throw FamilySyncError(.pairingExpired, "This pairing is \(status(at: now).rawValue); ask for a new QR code.")
        }
    }

    /// The stored status after a wrong token: the last allowed attempt burns the pairing.
    public static func statusAfterWrongToken(failedAttemptsBefore: Int) -> PairingStatus {
        failedAttemptsBefore + 1 >= maximumTokenAttempts ? .burned : .pending
    }
}

extension Pairing {
    /// A parent's invitation checked (§3): its lifetime (`defaultTTLSeconds` when none is given,
    /// within `ttlRange`), and whom it is for: a co-parent has no child name, and an invitation
    /// names an existing member or a new child's name, not both. The lifetime and the child's
    /// name as they are kept.
    public static func checkInvitation(role: DeviceRole, childName: String?, memberID: UUID?, ttlSeconds: Int?) throws(FamilySyncError) -> (ttl: Int, childName: String?) {
        let ttl = ttlSeconds ?? defaultTTLSeconds
        guard ttlRange.contains(ttl) else {
            throw .badRequest("ttlSeconds must be from \(ttlRange.lowerBound) to \(ttlRange.upperBound).", field: "ttlSeconds")
        }
        if role == .parent, childName != nil { throw .badRequest("A co-parent pairing has no child name.", field: "childName") }
        if memberID != nil, childName != nil {
            throw .badRequest("Name the member (memberId) or a new child (childName), not both.", field: "childName")
        }
        return (ttl, try childName.map { name throws(FamilySyncError) in try Validation.name(name, field: "childName") })
    }
}

extension Pairing {
    /// Whom a device joins when its pairing is confirmed (§3, §8).
    public enum Joining: Sendable, Equatable {
        /// The member the invitation named.
        case invited(UUID)
        /// A new member of the pairing's role, named after the child the invitation names (nil:
        /// after the device, as for a co-parent).
        case newMember(childName: String?)

        /// An existing member's zone gains a device (its readers are told).
        public var isExistingMember: Bool { if case .invited = self { true } else { false } }
    }

    public var joining: Joining { memberID.map(Joining.invited) ?? .newMember(childName: childName) }
}
