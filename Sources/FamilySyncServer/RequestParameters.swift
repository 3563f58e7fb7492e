import FamilySyncCore
import Foundation
import Hummingbird

// Ids, zone names and page sizes from the path and the query, parsed in one place: a bad one is
// 400 naming the parameter.

extension FamilySyncRequestContext {
    /// The `:id` of the path, a UUID.
    package func pathID() throws(FamilySyncError) -> UUID {
        try Validation.uuid(parameters.get("id") ?? "", field: "id")
    }

    /// The `:zone` of the path, a valid zone name.
    func pathZoneName() throws(FamilySyncError) -> String {
        let name = parameters.get("zone") ?? ""
        try RecordNames.checkZoneName(name, field: "zone")
        return name
    }
}

extension Request {
    /// `limit` of a paged read: 1 to `Limits.maximumPageSize`, `Limits.defaultPageSize` when absent.
    func pageLimit() throws(FamilySyncError) -> Int {
        guard let text = uri.queryParameters.get("limit") else { return Limits.defaultPageSize }
        guard let limit = Int(text), Limits.pageSizes.contains(limit) else {
            throw .badRequest("limit must be a whole number from \(Limits.pageSizes.lowerBound) to \(Limits.pageSizes.upperBound).", field: "limit")
        }
        return limit
    }
}
