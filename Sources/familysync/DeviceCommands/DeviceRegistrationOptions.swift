import ArgumentParser
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// How a new device introduces itself (`family create`, `pair accept`).
struct DeviceRegistrationOptions: ParsableArguments {
    @Option(help: "This device's name, as the family sees it (\"Mom's iPhone\").")
    var name: String

    @Option(help: "ios, ipados, macos, watchos, android, web or other. Default: other.")
    var platform: String = "other"

    @Option(help: "The device's IANA time zone; a child's days are counted in it. Default: this machine's.")
    var timeZone: String?

    @Flag(help: "Replace the profile if it already holds another device.")
    var force = false

    func registration() throws -> DeviceRegistration {
        DeviceRegistration(name: name, platform: try choice(platform, for: "the platform"), timeZone: timeZone ?? TimeZone.current.identifier)
    }
}
