import FamilySyncCore
import Foundation

/// `Pairing` on the wire (PROTOCOL §3).
public struct PairingBody: Codable, Sendable, Equatable {
    public var id: UUID
    public var role: DeviceRole
    public var childName: String?
    public var status: PairingStatus
    public var createdBy: UUID
    public var deviceId: UUID?
    public var verificationEmoji: [String]?
    public var createdAt: Date
    public var expiresAt: Date
    /// The member the device joins; null: a new member at confirmation (§8).
    public var memberId: UUID?

    public init(_ pairing: Pairing, at now: Date) {
        id = pairing.id
        role = pairing.role
        childName = pairing.childName
        status = pairing.status(at: now)
        createdBy = pairing.createdBy
        deviceId = pairing.deviceID
        verificationEmoji = pairing.verificationEmoji
        createdAt = pairing.createdAt
        expiresAt = pairing.expiresAt
        memberId = pairing.memberID
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.lowercased, forKey: .id)
        try container.encode(role, forKey: .role)
        try container.encode(childName, forKey: .childName)
        try container.encode(status, forKey: .status)
        try container.encode(createdBy.lowercased, forKey: .createdBy)
        try container.encode(deviceId?.lowercased, forKey: .deviceId)
        try container.encode(verificationEmoji, forKey: .verificationEmoji)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(memberId?.lowercased, forKey: .memberId)
    }
}

/// `POST /v1/pairings`.
public struct CreatePairingRequest: Codable, Sendable, Equatable {
    public var role: DeviceRole
    public var childName: String?
    public var ttlSeconds: Int?
    /// A second device of an existing member of that role (§8); instead of `childName`.
    public var memberId: UUID?
    public init(role: DeviceRole, childName: String? = nil, ttlSeconds: Int? = nil, memberId: UUID? = nil) {
        self.role = role
        self.childName = childName
        self.ttlSeconds = ttlSeconds
        self.memberId = memberId
    }
}

public struct CreatePairingResponse: Codable, Sendable, Equatable {
    public var pairing: PairingBody
    public var token: String
    public var qrPayload: String
    public init(pairing: PairingBody, token: String, qrPayload: String) {
        self.pairing = pairing
        self.token = token
        self.qrPayload = qrPayload
    }
}

/// `POST /v1/pairings/accept`: `qrPayload`, or `pairingId` with `token`; and the device.
public struct AcceptPairingRequest: Codable, Sendable, Equatable {
    public var qrPayload: String?
    public var pairingId: String?
    public var token: String?
    public var device: DeviceRegistration
    public init(qrPayload: String? = nil, pairingId: String? = nil, token: String? = nil, device: DeviceRegistration) {
        self.qrPayload = qrPayload
        self.pairingId = pairingId
        self.token = token
        self.device = device
    }
}

public struct AcceptPairingResponse: Codable, Sendable, Equatable {
    public var pairing: PairingBody
    public var device: DeviceBody
    public var credential: String
    public init(pairing: PairingBody, device: DeviceBody, credential: String) {
        self.pairing = pairing
        self.device = device
        self.credential = credential
    }
}

public struct PairingList: Codable, Sendable, Equatable {
    public var pairings: [PairingBody]
    public init(pairings: [PairingBody]) { self.pairings = pairings }
}
