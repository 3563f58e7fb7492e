import FamilySyncCore
import Foundation
import Testing

/// The policy alone, as docs/access.md states it; AccessMatrixTests checks the same over HTTP.
@Suite struct AccessPolicyTests {
    static let me = UUID()
    static func device(_ role: DeviceRole, _ status: DeviceStatus) -> AuthenticatedDevice {
        AuthenticatedDevice(familyID: UUID(), deviceID: me, role: role, status: status)
    }

    static let actions: [AccessPolicy.Action] = [
        .listDevices, .readOwnDevice, .updateDevice(target: me, members: [.name, .timeZone]), .updateDevice(target: me, members: [.childName]),
        .updateDevice(target: UUID(), members: [.name]), .revokeDevice, .rotateOwnCredential, .deleteFamily, .createPairing,
        .listPairings, .readPairing, .decidePairing, .revokePairing,
    ]

    @Test func anActiveParentMayDoEverything() {
        #expect(Self.actions.allSatisfy { AccessPolicy.isAllowed(Self.device(.parent, .active), $0) })
    }

    @Test func aRevokedDeviceMayDoNothing() {
        for role in DeviceRole.allCases {
            #expect(Self.actions.allSatisfy { !AccessPolicy.isAllowed(Self.device(role, .revoked), $0) })
        }
    }

    @Test func anAwaitingDeviceMayReadItselfAndItsPairingOnly() {
        for role in DeviceRole.allCases {
            let allowed = Self.actions.filter { AccessPolicy.isAllowed(Self.device(role, .awaitingConfirmation), $0) }
            #expect(allowed == [.readOwnDevice, .readPairing])
        }
    }

    @Test func anActiveChildMayReadAndRenameItselfAndRotateItsCredential() {
        let allowed = Self.actions.filter { AccessPolicy.isAllowed(Self.device(.child, .active), $0) }
        #expect(allowed == [.listDevices, .readOwnDevice, .updateDevice(target: Self.me, members: [.name, .timeZone]), .rotateOwnCredential, .readPairing])
    }

    @Test func denialsAreAccessDenied() {
        #expect(performing: { try AccessPolicy.check(Self.device(.child, .active), .createPairing) }, throws: { ($0 as? FamilySyncError)?.code == .accessDenied })
    }
}

/// Which child devices a use of their zone may name: one rule for commands and for reads.
@Suite struct ChildZoneUseTests {
    @Test func onlyChildrenAndOnlyActiveOnesTakeCommands() {
        func code(_ use: ChildZoneUse, _ role: DeviceRole?, _ status: DeviceStatus?) -> FamilySyncError.Code? {
            do { try use.check(role: role, status: status); return nil } catch { return error.code }
        }
        #expect(code(.sendCommands, nil, nil) == .notFound)
        #expect(code(.readHistory, .parent, .active) == .notFound)
        #expect(code(.sendCommands, .child, .active) == nil)
        #expect(code(.sendCommands, .child, .revoked) == .conflict)
        #expect(code(.sendCommands, .child, .awaitingConfirmation) == .conflict)
        #expect(code(.readHistory, .child, .active) == nil)
        #expect(code(.readHistory, .child, .revoked) == nil)
        #expect(code(.readHistory, .child, .awaitingConfirmation) == .conflict)
    }
}
