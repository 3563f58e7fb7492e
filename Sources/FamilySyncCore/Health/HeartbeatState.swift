import Foundation

/// What the server keeps of a tracked device's heartbeats between reports (§10): one row a device,
/// read before a report is judged and written after it.
public struct HeartbeatState: Sendable, Equatable {
    public var monitoringActive: Bool
    /// The server's receipt time of the last heartbeat (a device's clock may jump).
    public var lastHeartbeatAt: Date
    public var memoryUsageMB: Double?
    public var lastSequence: Int64?
    /// As last judged and written to the `health` record.
    public var status: TrackingStatus
    public var recordWrittenAt: Date
    /// The end of the local day the `health` record describes.
    public var recordDayEnd: Date

    public init(
        monitoringActive: Bool, lastHeartbeatAt: Date, memoryUsageMB: Double?, lastSequence: Int64?, status: TrackingStatus, recordWrittenAt: Date,
        recordDayEnd: Date
    ) {
        self.monitoringActive = monitoringActive
        self.lastHeartbeatAt = lastHeartbeatAt
        self.memoryUsageMB = memoryUsageMB
        self.lastSequence = lastSequence
        self.status = status
        self.recordWrittenAt = recordWrittenAt
        self.recordDayEnd = recordDayEnd
    }
}
