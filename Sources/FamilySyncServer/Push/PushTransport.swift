import FamilySyncCore

/// Where a push sender hands a push (PROTOCOL §12): APNs, or an app maker's webhook. An error
/// reaching it is an outcome too (`retry`), never a throw: the sender settles every claimed row.
package protocol PushTransport: Sendable {
    func send(_ delivery: PushDelivery) async -> PushOutcome
    func shutdown() async throws
}
