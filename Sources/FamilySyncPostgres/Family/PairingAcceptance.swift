import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// What an accepted pairing made: the pairing as it is now, its device, and the device's
/// credential (shown once).
public struct PairingAcceptance: Sendable {
    public var pairing: Pairing
    public var device: Device
    public var credential: DeviceCredential
}
