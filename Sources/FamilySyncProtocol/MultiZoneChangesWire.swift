import FamilySyncCore
import Foundation

/// `POST /v1/changes/zones` (PROTOCOL §5.5): the changes of several zones in one round trip.
public struct MultiZoneChangesRequest: Codable, Sendable, Equatable {
    /// A zone and the token its last page gave (nil: from the start, as `GET …/changes` without `since`).
    public struct Zone: Codable, Sendable, Equatable {
        public var zoneName: String
        public var since: String?
        public init(zoneName: String, since: String? = nil) {
            self.zoneName = zoneName
            self.since = since
        }
    }

    public var zones: [Zone]
    /// Records a zone's page may hold; nil: the server's default (200).
    public var limit: Int?
    /// How each page is written; nil: `full`.
    public var format: ChangesFormat?
    public init(zones: [Zone], limit: Int? = nil, format: ChangesFormat? = nil) {
        self.zones = zones
        self.limit = limit
        self.format = format
    }
}

/// One zone of the answer: its page, or `{zoneName, error}` as a record of `records/modify` fails
/// alone (§5.3).
public struct ZoneChangesResult: Codable, Sendable, Equatable {
    public var zoneName: String
    public var page: ZoneChangesResponse?
    public var error: ErrorResponse.Body?

    public init(zoneName: String, page: ZoneChangesResponse) {
        self.zoneName = zoneName
        self.page = page
    }

    public init(zoneName: String, error: FamilySyncError) {
        self.zoneName = zoneName
        self.error = ErrorResponse(error).error
    }

    /// The page, or the zone's error as the single-zone fetch would have thrown it.
    public var outcome: Result<ZoneChangesResponse, FamilySyncError> {
        if let page { return .success(page) }
        return .failure(error.map { ErrorResponse(error: $0).familySyncError } ?? FamilySyncError(.internalError, "The answer for zone '\(zoneName)' has neither records nor an error."))
    }

    // A page is `{zoneName, records, changeToken, moreComing}`; a failure `{zoneName, error}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        zoneName = try container.decode(String.self, forKey: .zoneName)
        error = try container.decodeIfPresent(ErrorResponse.Body.self, forKey: .error)
        page = error == nil ? try ZoneChangesResponse(from: decoder) : nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(zoneName, forKey: .zoneName)
        try container.encodeIfPresent(error, forKey: .error)
        try page?.encode(to: encoder)
    }

    enum CodingKeys: String, CodingKey { case zoneName, error }
}

public struct MultiZoneChangesResponse: Codable, Sendable, Equatable {
    public var zones: [ZoneChangesResult]
    public init(zones: [ZoneChangesResult]) { self.zones = zones }
}
