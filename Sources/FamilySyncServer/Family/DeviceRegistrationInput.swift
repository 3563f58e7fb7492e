import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// A `DeviceRegistration` after validation.
struct DeviceRegistrationInput {
    var name: String
    var platform: DevicePlatform
    var timeZone: String

    init(_ registration: DeviceRegistration, field: String) throws(FamilySyncError) {
        name = try Validation.name(registration.name, field: "\(field).name")
        platform = registration.platform
        timeZone = try Validation.timeZone(registration.timeZone, field: "\(field).timeZone")
    }
}
