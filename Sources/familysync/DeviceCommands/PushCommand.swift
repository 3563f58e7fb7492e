import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import Foundation

/// `familysync push …` (PROTOCOL §12): a device's APNs registration, for trying push by hand.
struct PushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "This device's push registration (PROTOCOL §12): register an APNs token, or remove it.",
        subcommands: [Register.self, Unregister.self]
    )

    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register an APNs device token for this profile's device; it moves from any device that held it."
        )

        @OptionGroup var options: ClientOptions
        @Option(help: "The device token in hex (64-200 digits).")
        var token: String
        @Option(help: "The app's bundle id (the apns-topic).")
        var topic: String
        @Option(help: "production or sandbox. Default: production.")
        var environment: String = "production"

        func run() async throws {
            let context = try options.context()
            let (profile, client) = try context.device()
            guard let environment = PushRegistration.Environment(rawValue: environment) else {
                throw OperatorError.configuration("--environment is production or sandbox, not '\(environment)'")
            }
            try await client.registerPush(token: token, topic: topic, environment: environment)
            context.output.line("\(profile.name) gets pushes for \(topic) (\(environment.rawValue)) at token \(token.prefix(8))….")
        }
    }

    struct Unregister: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove this profile's device's push registration.")

        @OptionGroup var options: ClientOptions

        func run() async throws {
            let context = try options.context()
            let (profile, client) = try context.device()
            try await client.unregisterPush()
            context.output.line("\(profile.name) gets no pushes.")
        }
    }
}
