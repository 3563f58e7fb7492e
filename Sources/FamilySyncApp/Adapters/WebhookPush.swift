import AsyncHTTPClient
import Crypto
import FamilySyncCore
import FamilySyncServer
import Foundation
import Logging
import NIOCore

/// What a webhook receives: the push as it would go to APNs, and where.
struct WebhookPush: Encodable {
    var pushID: Int64
    var apnsID: String
    var familyID: String
    var deviceID: String
    var kind: String
    var provider: String
    var token: String
    var topic: String
    var environment: String
    var priority: Int
    var expiresAt: Date
    var payload: [String: JSONValue]

    init(_ delivery: PushDelivery) {
        pushID = delivery.pushID
        apnsID = delivery.apnsID.lowercased
        familyID = delivery.familyID.lowercased
        deviceID = delivery.deviceID.lowercased
        kind = delivery.kind.rawValue
        provider = delivery.registration.provider.rawValue
        token = delivery.registration.token
        topic = delivery.registration.topic
        environment = delivery.registration.environment.rawValue
        priority = delivery.priority
        expiresAt = delivery.expiresAt
        payload = delivery.payload
    }
}
