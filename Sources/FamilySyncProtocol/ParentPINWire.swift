import Foundation

/// `PUT /v1/members/{id}/pin` (§11).
public struct SetParentPINRequest: Codable, Sendable, Equatable {
    public var pin: String

    public init(pin: String) {
        self.pin = pin
    }
}

/// `POST /v1/members/{id}/pin/verify` (§11).
public struct VerifyParentPINRequest: Codable, Sendable, Equatable {
    public var pin: String

    public init(pin: String) {
        self.pin = pin
    }
}

public struct VerifyParentPINResponse: Codable, Sendable, Equatable {
    public var valid: Bool

    public init(valid: Bool) {
        self.valid = valid
    }
}
