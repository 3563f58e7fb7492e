import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// A device's day of health (`GET /v1/devices/{id}/health`), read in one snapshot, never in a
/// write transaction.
public struct PostgresHealthReads: Sendable {
    let database: Database
    let clock: any WallClock
    let logger: Logger

    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        database = changeLog.database
        self.clock = clock
        self.logger = logger
    }

    /// For a parent of its family or the device itself; a device of another family is `NOT_FOUND`.
    /// `date`: the device's local day, today when nil.
    public func health(of deviceID: UUID, familyID: UUID, date: String?, errorLimit: Int) async throws -> (health: DeviceHealth, deviceName: String, timeZone: String) {
        let logger = logger
        let now = clock.now()
        return try await database.inSnapshot(logger: logger) { connection in
            let owner = try await DeviceHealthRows.owner(deviceID, of: familyID, on: connection, logger: logger)
            let day = date ?? DailySummaryCalculator.day(of: now, in: owner.timeZone)
            return (try await DeviceHealthRows.day(day, of: owner, on: connection, errorLimit: errorLimit, now: now, logger: logger), owner.name, owner.timeZoneName)
        }
    }
}
