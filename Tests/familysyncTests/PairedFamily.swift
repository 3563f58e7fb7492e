import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// A family on a server process: its parent's client and its confirmed children, as the apps
/// pair them (QR payload, accept, confirm).
struct PairedFamily: Sendable {
    struct Child: Sendable {
        let client: FamilySyncClient
        let id: UUID
        var zone: String { Device.zoneName(forChild: id) }
    }

    let parent: FamilySyncClient
    let children: [Child]

    static func create(on anonymous: FamilySyncClient, name: String = "Parent", children count: Int = 1) async throws -> PairedFamily {
        let family = try await anonymous.createFamily(.init(name: name, platform: .ios, timeZone: "UTC"))
        let parent = anonymous.authenticated(as: family.credential)
        var children: [Child] = []
        for index in 0..<count {
            let invitation = try await parent.createPairing(.init(role: .child, childName: "Child \(index)"))
            let accepted = try await anonymous.acceptPairing(
                qrPayload: invitation.qrPayload, device: .init(name: "\(name) child \(index)", platform: .ipados, timeZone: "UTC")
            )
            _ = try await parent.confirmPairing(invitation.pairing.id)
            children.append(Child(client: anonymous.authenticated(as: accepted.credential), id: accepted.device.id))
        }
        return PairedFamily(parent: parent, children: children)
    }
}

extension FamilySyncError {
    /// The SDK's `TRY_AGAIN_LATER` for a request that got no HTTP answer at all (the server was
    /// gone), as opposed to the server's own 503.
    var isUnanswered: Bool {
        code == .tryAgainLater && reason.hasPrefix("The server at")
    }
}

extension ModifyRecordsRequest {
    /// One `AppConfiguration` saved (by default forced, so that saving it again is harmless).
    static func appConfiguration(_ name: String, _ operation: RecordOperationType = .forceReplace) -> ModifyRecordsRequest {
        ModifyRecordsRequest(operations: [
            .init(operationType: operation, record: .init(recordName: name, recordType: "AppConfiguration", fields: [
                "logicalID": .string(name), "displayName": .string("App"), "category": .string("learning"),
                "isEnabled": .bool(true), "blockingEnabled": .bool(false),
            ])),
        ])
    }
}

extension UsageRecordBody {
    /// One second of `app` in its own second: sessions made this way never overlap, so a day's
    /// total is the number of distinct records stored.
    static func second(_ slot: Int, after base: Date, app: Int, id: UUID = UUID()) -> UsageRecordBody {
        let start = base.addingTimeInterval(TimeInterval(slot) * 2)
        return UsageRecordBody(
            recordID: id.uuidString, logicalID: "app-\(app)", displayName: "App \(app)", category: app % 2 == 0 ? "learning" : "reward",
            sessionStart: start, sessionEnd: start.addingTimeInterval(1), totalSeconds: 1
        )
    }
}
