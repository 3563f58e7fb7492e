import Foundation

/// A device signing in by showing a code (PROTOCOL §3.1), as a browser does for the dashboard: it
/// asks for a code, a parent device takes the code (a §3 pairing with `role: "parent"`, the device
/// accepted at once), the device claims its credential with its secret, and the parent confirms
/// it after comparing the emoji.
public struct SignIn: Sendable, Equatable {
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// No parent has taken the code yet.
        case waiting
        /// A parent took it: the device may claim its credential.
        case taken
        /// The device has its credential; the pairing goes on as §3's.
        case claimed
        case expired
    }

    public var code: SignInCode
    public var deviceName: String
    public var platform: DevicePlatform
    public var timeZone: String
    public var createdAt: Date
    public var expiresAt: Date
    /// Set when a parent takes the code: the family, its pairing and the id the device will have.
    public var familyID: UUID?
    public var pairingID: UUID?
    public var deviceID: UUID?
    public var claimedAt: Date?

    public init(
        code: SignInCode, deviceName: String, platform: DevicePlatform, timeZone: String, createdAt: Date, expiresAt: Date,
        familyID: UUID? = nil, pairingID: UUID? = nil, deviceID: UUID? = nil, claimedAt: Date? = nil
    ) {
        self.code = code
        self.deviceName = deviceName
        self.platform = platform
        self.timeZone = timeZone
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.familyID = familyID
        self.pairingID = pairingID
        self.deviceID = deviceID
        self.claimedAt = claimedAt
    }

    /// A claimed sign-in stays claimed; anything else ends at `expiresAt`.
    public func status(at now: Date) -> Status {
        if claimedAt != nil { return .claimed }
        if now >= expiresAt { return .expired }
        return pairingID == nil ? .waiting : .taken
    }

    /// Ten minutes, as a pairing's default: long enough to fetch a phone, short enough that a
    /// code on a forgotten screen dies soon.
    public static let ttlSeconds = 600

    /// A parent may take only a waiting code.
    public func checkTakeable(at now: Date) throws(FamilySyncError) {
        switch status(at: now) {
        case .waiting: return
        case .expired: throw FamilySyncError(.pairingExpired, "This sign-in code expired; the device shows a new one when asked.")
        case .taken, .claimed: throw FamilySyncError(.pairingExpired, "This sign-in code was already used.")
        }
    }

    /// The device claims its credential once, after a parent took the code.
    public func checkClaimable(at now: Date) throws(FamilySyncError) {
        switch status(at: now) {
        case .waiting, .taken: return
        case .expired: throw FamilySyncError(.pairingExpired, "This sign-in code expired; start again.")
        case .claimed: throw FamilySyncError(.pairingExpired, "This sign-in was already claimed.")
        }
    }
}

/// The short code a signing-in device shows, for a person to type on a parent device or for its
/// camera to read from a QR code: 40 random bits as eight base32 characters (`K7QF-M2XA`). Only a
/// family's parent can use it, for ten minutes, once; the server keeps its SHA-256 and finds the
/// sign-in by it.
public struct SignInCode: Sendable, Equatable, Hashable {
    /// The eight characters, upper case, without separators.
    public let normalized: String

    public static func generate() -> SignInCode {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<5).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return SignInCode(normalized: RecoveryCode.base32(bytes))
    }

    private init(normalized: String) { self.normalized = normalized }

    /// What a person typed: any case, with or without a dash or spaces. Nil when it cannot be a code.
    public init?(parsing text: String) {
        guard text.utf8.count <= 32 else { return nil }
        let characters = text.uppercased().utf8.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: " ") }
        guard characters.count == 8, characters.allSatisfy(RecoveryCode.alphabet.contains) else { return nil }
        normalized = String(decoding: characters, as: UTF8.self)
    }

    /// As shown: two groups of four.
    public var display: String { "\(normalized.prefix(4))-\(normalized.suffix(4))" }

    public var hash: [UInt8] { SecretToken.hash("fc1.\(normalized)") }
}

/// What the signing-in device keeps to claim its credential: `fw1.<code>.<secret>`, 256 random
/// bits after the code that finds its row. Stored as SHA-256, compared in constant time.
public struct SignInSecret: Sendable, Equatable {
    public var code: SignInCode
    public var token: String

    public static func generate(code: SignInCode) -> SignInSecret {
        SignInSecret(code: code, token: "fw1.\(code.normalized).\(SecretToken.randomSecret())")
    }

    public init?(parsing token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "fw1", parts[1].utf8.count == 8, let code = SignInCode(parsing: String(parts[1])),
            code.normalized == parts[1], SecretToken.isSecret(parts[2])
        else { return nil }
        self.init(code: code, token: token)
    }

    init(code: SignInCode, token: String) {
        self.code = code
        self.token = token
    }

    public var hash: [UInt8] { SecretToken.hash(token) }
}
