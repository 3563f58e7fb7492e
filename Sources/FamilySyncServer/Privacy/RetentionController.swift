import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `GET|PUT /v1/families/me/retention` (PROTOCOL §15.1): how long the family keeps each kind of
/// its data, within the operator's maximum.
package struct RetentionController {
    let retention: PostgresRetention
    /// The operator's maximum, days (`--usage-retention-days`).
    let maximumDays: Int

    package init(retention: PostgresRetention, maximumDays: Int) {
        self.retention = retention
        self.maximumDays = maximumDays
    }

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.get("families/me/retention", use: get)
            .put("families/me/retention", use: set)
    }

    @Sendable func get(_ request: Request, context: FamilySyncRequestContext) async throws -> RetentionBody {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .manageRetention)
        return body(try await retention.settings(familyID: caller.familyID))
    }

    /// Replaces the family's settings: the kinds named, each 1…maximum days; the others go back to
    /// the maximum. Shorter periods apply at the job's next run (within the hour).
    @Sendable func set(_ request: Request, context: FamilySyncRequestContext) async throws -> RetentionBody {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .manageRetention)
        let request = try await request.decode(as: SetRetentionRequest.self, context: context)
        var days: [RetentionKind: Int] = [:]
        for (name, value) in request.days.sorted(by: { $0.key < $1.key }) {
            guard let kind = RetentionKind(rawValue: name) else {
                throw FamilySyncError.badRequest(
                    "Unknown kind; retention is set for \(RetentionKind.allCases.map(\.rawValue).joined(separator: ", ")).", field: "days.\(name.prefix(64))"
                )
            }
            days[kind] = value
        }
        let settings = try RetentionSettings.validated(days, maximum: maximumDays)
        try await retention.set(settings, familyID: caller.familyID, as: context.writer)
        return body(settings)
    }

    func body(_ settings: RetentionSettings) -> RetentionBody {
        RetentionBody(
            days: Dictionary(uniqueKeysWithValues: RetentionKind.allCases.map { ($0.rawValue, settings.days($0, maximum: maximumDays)) }),
            maximumDays: maximumDays, familySet: RetentionKind.allCases.filter { settings.days[$0] != nil }.map(\.rawValue)
        )
    }
}
