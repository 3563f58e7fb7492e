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

    public init(
        id: UUID, familyID: UUID, role: DeviceRole, childName: String?, storedStatus: PairingStatus, createdBy: UUID,
        deviceID: UUID?, verificationEmoji: [String]?, createdAt: Date, expiresAt: Date
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
    }

    /// A pending or accepted pairing whose time has run out reads as `expired`; the other states are final.
    public func status(at now: Date) -> PairingStatus {
        switch storedStatus {
        case .pending, .accepted: now >= expiresAt ? .expired : storedStatus
        default: storedStatus
        }
    }

    /// Wrong tokens a pairing takes before it is burned (PROTOCOL §9).
    public static let maximumTokenAttempts = 5
    public static let ttlRange = 60...86_400
    public static let defaultTTLSeconds = 600
}
