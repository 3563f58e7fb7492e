import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// One device a person acts as: where its server is and the credential it holds.
struct Profile: Codable, Equatable {
    var server: String
    var credential: String
    var familyId: UUID
    var deviceId: UUID
    var role: DeviceRole
    var name: String
    /// The server's keys this device accepts when it paired under pins (§3.2); nil: the
    /// system's trust (and `--ca-certificate`).
    var keyPins: [String]? = nil
}

/// The profile file: every device this person acts as, by profile name. It holds credentials, so
/// it is written by `PrivateFile` (mode 0600, whole or not at all).
struct ProfileStore {
    let url: URL

    private struct Contents: Codable {
        var profiles: [String: Profile] = [:]
    }

    /// Profile names become file names (the sync state beside the profile file).
    static func validate(name: String) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard (1...64).contains(name.count), name.allSatisfy(allowed.contains), !name.hasPrefix(".") else {
            throw OperatorError.configuration("a profile name is 1-64 of A-Z a-z 0-9 . _ - (not starting with '.'), not '\(name)'")
        }
    }

    func all() throws -> [String: Profile] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [:] }
        do {
            return try JSONDecoder().decode(Contents.self, from: Data(contentsOf: url)).profiles
        } catch {
            throw OperatorError.configuration("the profile file \(url.path) cannot be read: \(error.localizedDescription)")
        }
    }

    func profile(named name: String) throws -> Profile {
        guard let profile = try all()[name] else {
            throw OperatorError.configuration(
                "no profile '\(name)' in \(url.path): run 'familysync family create' or 'familysync pair accept' first, or choose one with --profile"
            )
        }
        return profile
    }

    /// Checked before a new device is registered, so that its credential always has a place to go:
    /// a profile holding another device is replaced only when asked (`--force`).
    func checkFree(_ name: String, replacing: Bool) throws {
        guard !replacing, let existing = try all()[name] else { return }
        throw OperatorError.configuration(
            "profile '\(name)' already holds \(existing.name) (\(existing.role.rawValue), device \(existing.deviceId.lowercased)); choose another --profile or pass --force"
        )
    }

    func save(_ profile: Profile, as name: String) throws {
        var contents = Contents(profiles: try all())
        contents.profiles[name] = profile
        try write(contents)
    }

    func remove(_ name: String) throws {
        var contents = Contents(profiles: try all())
        guard contents.profiles.removeValue(forKey: name) != nil else { return }
        try write(contents)
    }

    private func write(_ contents: Contents) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try PrivateFile.write(try encoder.encode(contents), to: url)
        } catch {
            throw OperatorError.runtime("the profile file \(url.path) cannot be written: \(error.localizedDescription)")
        }
    }
}
