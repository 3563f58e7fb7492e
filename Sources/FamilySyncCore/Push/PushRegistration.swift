import Foundation

/// A device's push registration (PROTOCOL §12): where APNs reaches it.
public struct PushRegistration: Sendable, Equatable {
    public enum Provider: String, Sendable, CaseIterable {
        case apns
    }

    public enum Environment: String, Sendable, CaseIterable {
        case production, sandbox
    }

    public var provider: Provider
    /// Lowercase hex, 64–200 characters (APNs device tokens are 32 bytes today, longer ones allowed).
    public var token: String
    /// The app's bundle id (`apns-topic`).
    public var topic: String
    public var environment: Environment

    public init(provider: Provider, token: String, topic: String, environment: Environment) {
        self.provider = provider
        self.token = token
        self.topic = topic
        self.environment = environment
    }

    /// Checks what a device sent, naming the member at fault; the token is kept lowercase.
    public static func validated(provider: String, token: String, topic: String, environment: String) throws(FamilySyncError) -> PushRegistration {
        guard let provider = Provider(rawValue: provider) else {
            throw .badRequest("provider is one of: \(Provider.allCases.map(\.rawValue).joined(separator: ", ")).", field: "provider")
        }
        let hex = token.lowercased()
        guard (64...200).contains(hex.utf8.count), hex.utf8.count.isMultiple(of: 2),
            hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            throw .badRequest("token is the device token in hex: 64 to 200 hex digits, an even number.", field: "token")
        }
        guard isBundleID(topic) else {
            throw .badRequest("topic is the app's bundle id: 1 to 255 of letters, digits, '.' and '-', as com.example.app.", field: "topic")
        }
        guard let environment = Environment(rawValue: environment) else {
            throw .badRequest("environment is production or sandbox.", field: "environment")
        }
        return PushRegistration(provider: provider, token: hex, topic: topic, environment: environment)
    }

    static func isBundleID(_ text: String) -> Bool {
        (1...255).contains(text.utf8.count) && !text.hasPrefix(".") && !text.hasSuffix(".") && !text.contains("..")
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte) || byte == 0x2e || byte == 0x2d
            }
    }
}
