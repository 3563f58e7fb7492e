import FamilySyncCore
import Foundation

/// `POST /v1/families/recover` (PROTOCOL §13): a recovery code, or a Sign in with Apple identity
/// token with its nonce; and the new device.
public struct RecoverFamilyRequest: Codable, Sendable, Equatable {
    public var recoveryCode: String?
    public var appleIdentityToken: String?
    public var nonce: String?
    public var device: DeviceRegistration
    public init(recoveryCode: String? = nil, appleIdentityToken: String? = nil, nonce: String? = nil, device: DeviceRegistration) {
        self.recoveryCode = recoveryCode
        self.appleIdentityToken = appleIdentityToken
        self.nonce = nonce
        self.device = device
    }
}

/// `POST /v1/families/me/recovery-code`.
public struct RecoveryCodeResponse: Codable, Sendable, Equatable {
    public var recoveryCode: String
    public init(recoveryCode: String) { self.recoveryCode = recoveryCode }
}

/// `POST /v1/account/apple`: links the Apple account to the caller's member.
public struct LinkAppleAccountRequest: Codable, Sendable, Equatable {
    public var identityToken: String
    public var nonce: String
    public init(identityToken: String, nonce: String) {
        self.identityToken = identityToken
        self.nonce = nonce
    }
}
