import FamilySyncCore
import Foundation

/// Push as the operator configured it (PROTOCOL §12; docs/walkthrough.md, "Push on iOS"): APNs with the app
/// maker's key, or a webhook. Without it push is off: no outbox rows, no sender.
public struct PushSettings: Sendable {
    public enum Destination: Sendable {
        /// `environment`: every push to that APNs host; nil: each registration's decides.
        case apns(keyPEM: String, keyID: String, teamID: String, environment: PushRegistration.Environment?)
        case webhook(url: String, secret: [UInt8])
    }

    public var destination: Destination
    /// At most one background push a device per interval (`--push-min-interval`).
    public var minimumInterval: TimeInterval
    /// A stand-in APNs for both environments, and the certificates to trust for it (tests and the
    /// benchmark; never in production).
    public var apnsBaseURL: String?
    public var trustRoots: [String]?
    /// How long an idle sender waits before it looks at the outbox again unwoken.
    public var idleInterval: Duration
    /// How long a sender holds a claimed row; past it another instance may send it.
    public var claimFor: TimeInterval

    public init(
        destination: Destination, minimumInterval: TimeInterval = BackgroundPush.defaultMinimumInterval, apnsBaseURL: String? = nil,
        trustRoots: [String]? = nil, idleInterval: Duration = .seconds(1), claimFor: TimeInterval = 30
    ) {
        self.destination = destination
        self.minimumInterval = minimumInterval
        self.apnsBaseURL = apnsBaseURL
        self.trustRoots = trustRoots
        self.idleInterval = idleInterval
        self.claimFor = claimFor
    }
}

extension PushSettings.Destination: CustomStringConvertible {
    /// For the log: where pushes go, no secret.
    public var description: String {
        switch self {
        case .apns(_, let keyID, let teamID, let environment): "APNs (key \(keyID), team \(teamID), \(environment?.rawValue ?? "each registration's environment"))"
        case .webhook(let url, _): "webhook \(url)"
        }
    }
}
