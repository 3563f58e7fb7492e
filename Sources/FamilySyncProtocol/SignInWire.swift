import FamilySyncCore
import Foundation

/// A sign-in on the wire (PROTOCOL §3.1): its code as shown, its status and when it ends.
public struct SignInBody: Codable, Sendable, Equatable {
    /// `K7QF-M2XA`: what the device shows and a person types on a parent device.
    public var code: String
    public var status: SignIn.Status
    public var expiresAt: Date

    public init(_ signIn: SignIn, at now: Date) {
        code = signIn.code.display
        status = signIn.status(at: now)
        expiresAt = signIn.expiresAt
    }
}

/// `POST /v1/sign-ins`: the device that will show the code.
public struct StartSignInRequest: Codable, Sendable, Equatable {
    public var device: DeviceRegistration
    public init(device: DeviceRegistration) { self.device = device }
}

public struct StartSignInResponse: Codable, Sendable, Equatable {
    public var signIn: SignInBody
    /// The device's own, to claim its credential with: shown once, kept only as a hash.
    public var secret: String
    /// `familysync://sign-in?v=1&s=…&c=…`, for the QR code the device shows.
    public var qrPayload: String
    public init(signIn: SignInBody, secret: String, qrPayload: String) {
        self.signIn = signIn
        self.secret = secret
        self.qrPayload = qrPayload
    }
}

/// `POST /v1/pairings/sign-in`: a parent takes the code a device shows (typed, or read from its
/// QR code).
public struct TakeSignInRequest: Codable, Sendable, Equatable {
    public var code: String?
    public var qrPayload: String?
    public init(code: String? = nil, qrPayload: String? = nil) {
        self.code = code
        self.qrPayload = qrPayload
    }
}

/// `POST /v1/sign-ins/claim`.
public struct ClaimSignInRequest: Codable, Sendable, Equatable {
    public var secret: String
    public init(secret: String) { self.secret = secret }
}

/// While no parent has taken the code, only `signIn` (status `waiting`); once one has, the
/// pairing (accepted, with its emoji), the device (awaiting confirmation) and its credential,
/// given this once.
public struct ClaimSignInResponse: Codable, Sendable, Equatable {
    public var signIn: SignInBody
    public var pairing: PairingBody?
    public var device: DeviceBody?
    public var credential: String?
    public init(signIn: SignInBody, pairing: PairingBody? = nil, device: DeviceBody? = nil, credential: String? = nil) {
        self.signIn = signIn
        self.pairing = pairing
        self.device = device
        self.credential = credential
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(signIn, forKey: .signIn)
        try container.encodeIfPresent(pairing, forKey: .pairing)
        try container.encodeIfPresent(device, forKey: .device)
        try container.encodeIfPresent(credential, forKey: .credential)
    }
}
