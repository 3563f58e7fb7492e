import Foundation

/// `PUT /v1/devices/me/push` (§12).
public struct PushRegistrationRequest: Codable, Sendable, Equatable {
    public var provider: String
    public var token: String
    public var topic: String
    public var environment: String

    public init(provider: String = "apns", token: String, topic: String, environment: String = "production") {
        self.provider = provider
        self.token = token
        self.topic = topic
        self.environment = environment
    }
}
