import FamilySyncCore
import FamilySyncProtocol
import Foundation
import Hummingbird
import HummingbirdCore

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
        try uri.queryParameters.pageLimit()
    }
}

/// The query's parameters, parsed once by a handler that reads several (`URI.queryParameters`
/// parses the query again on each use: 1.2 % of a nothing-new fetch that read three).
extension FlatDictionary<Substring, Substring> {
    /// `limit` of a paged read: 1 to `Limits.maximumPageSize`, `Limits.defaultPageSize` when absent.
    func pageLimit() throws(FamilySyncError) -> Int {
        guard let text = get("limit") else { return Limits.defaultPageSize }
        guard let limit = Int(text), Limits.pageSizes.contains(limit) else {
            throw .badRequest("limit must be a whole number from \(Limits.pageSizes.lowerBound) to \(Limits.pageSizes.upperBound).", field: "limit")
        }
        return limit
    }

    /// `format` of a page of changes: `full` (the default) or `compact` (PROTOCOL §5.5).
    func changesFormat() throws(FamilySyncError) -> ChangesFormat {
        guard let text = get("format") else { return .full }
        guard let format = ChangesFormat(rawValue: text) else { throw .badRequest("format must be full or compact.", field: "format") }
        return format
    }
}

extension Request {
    /// `from` and `to`, local dates, both included, at most a year and a day: the reports', the
    /// alerts' and the audit log's range.
    func dateRange() throws(FamilySyncError) -> [String] {
        let parameters = uri.queryParameters
        guard let from = parameters.get("from"), DailySummaryCalculator.interval(of: from, in: .gmt) != nil else {
            throw DailySummaryCalculator.notADate("from")
        }
        guard let to = parameters.get("to"), DailySummaryCalculator.interval(of: to, in: .gmt) != nil else {
            throw DailySummaryCalculator.notADate("to")
        }
        guard let dates = UsageReport.dates(from: from, to: to) else {
            throw .badRequest("to is on or after from, and at most \(UsageReport.maximumDays) days later.", field: "to")
        }
        return dates
    }

    /// `granularity` of a report: `day` (the default) or `week`.
    func granularity() throws(FamilySyncError) -> UsageReport.Granularity {
        let text = uri.queryParameters.get("granularity") ?? "day"
        guard let granularity = UsageReport.Granularity(rawValue: text) else {
            throw .badRequest("granularity is day or week.", field: "granularity")
        }
        return granularity
    }
}

extension FamilySyncRequestContext {
    /// The caller and the member of the path, when the caller may read that member's usage (a
    /// parent, or the member's own device): the member's reports and alerts.
    func memberUsageReader() throws(FamilySyncError) -> (AuthenticatedDevice, UUID) {
        let caller = try requireDevice()
        let memberID = try pathID()
        try AccessPolicy.check(caller, .readMemberUsage(member: memberID))
        return (caller, memberID)
    }
}
