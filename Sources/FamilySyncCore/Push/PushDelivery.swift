import Foundation

/// One push as a sender hands it to APNs or a webhook (PROTOCOL §12): an outbox row with the
/// registration it goes to.
public struct PushDelivery: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// `content-available`: wakes the app to sync, shows nothing.
        case background
        /// A visible notification of a new alert, to a parent device.
        case alert
    }

    /// The outbox row's id, and APNs's `apns-id` (a UUID the row was given).
    public var pushID: Int64
    public var apnsID: UUID
    public var familyID: UUID
    public var deviceID: UUID
    public var kind: Kind
    public var registration: PushRegistration
    /// The APNs payload (`aps` and `familysync`).
    public var payload: [String: JSONValue]
    public var createdAt: Date
    /// Not sent after; `apns-expiration`.
    public var expiresAt: Date
    /// Sends tried so far, this one included.
    public var attempts: Int

    public init(
        pushID: Int64, apnsID: UUID, familyID: UUID, deviceID: UUID, kind: Kind, registration: PushRegistration, payload: [String: JSONValue],
        createdAt: Date, expiresAt: Date, attempts: Int
    ) {
        self.pushID = pushID
        self.apnsID = apnsID
        self.familyID = familyID
        self.deviceID = deviceID
        self.kind = kind
        self.registration = registration
        self.payload = payload
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.attempts = attempts
    }

    /// `apns-priority`: 5 for background pushes (APNs refuses 10 for them), 10 for alerts.
    public var priority: Int { kind == .background ? 5 : 10 }
}

/// What became of a send, and so of its outbox row (PROTOCOL §12).
public enum PushOutcome: Sendable, Equatable {
    /// Accepted: the row is done.
    case sent
    /// The token is dead (400 `BadDeviceToken`, 410 `Unregistered`): the registration is removed
    /// and the row dropped.
    case tokenGone(reason: String)
    /// Worth another try (429, 5xx, the provider's token refused, no answer): again after a
    /// backoff, until the push expires.
    case retry(reason: String)
    /// Refused for what it is (another 4xx): sending it again cannot help; the row is dropped.
    case rejected(reason: String)

    /// From an APNs answer: its status and its JSON body's `reason`.
    public static func apns(status: Int, reason: String?) -> PushOutcome {
        switch status {
        case 200: .sent
        case 410: .tokenGone(reason: reason ?? "Unregistered")
        case 400 where reason == "BadDeviceToken": .tokenGone(reason: "BadDeviceToken")
        // The provider token: expired or refused; the sender makes a new one and tries again.
        case 403 where ["ExpiredProviderToken", "InvalidProviderToken", "MissingProviderToken"].contains(reason ?? ""): .retry(reason: reason ?? "Forbidden")
        case 429: .retry(reason: reason ?? "TooManyRequests")
        case 500...599: .retry(reason: reason ?? "HTTP \(status)")
        default: .rejected(reason: reason ?? "HTTP \(status)")
        }
    }

    /// From a webhook's answer: 2xx is done, 429 and 5xx retry, another status is refused.
    public static func webhook(status: Int) -> PushOutcome {
        switch status {
        case 200...299: .sent
        case 429, 500...599: .retry(reason: "HTTP \(status)")
        default: .rejected(reason: "HTTP \(status)")
        }
    }

    /// The label of `familysync_push_failures_total`.
    public var reason: String? {
        switch self {
        case .sent: nil
        case .tokenGone(let reason), .retry(let reason), .rejected(let reason): reason
        }
    }
}

/// When a push that must be retried goes again: 1 s, 2 s, 4 s… at most 5 minutes, times a jitter
/// in 0.5…1 so that pushes refused together do not return together.
public enum PushBackoff {
    public static let maximum: TimeInterval = 300

    public static func delay(afterAttempt attempt: Int, jitter: Double = 1) -> TimeInterval {
        let base = min(pow(2, Double(max(attempt, 1) - 1)), maximum)
        return base * min(max(jitter, 0.5), 1)
    }
}
