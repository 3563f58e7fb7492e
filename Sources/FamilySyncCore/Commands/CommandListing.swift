import Foundation

/// A child's command list as one request makes it (PROTOCOL §7.1): commands past `expiresAt`
/// are expired on the way; when the child itself asks, the pending ones it is handed become
/// delivered. The status filter applies to the status each had on arrival (after expiry, before
/// delivery), so a child asking for its pending commands receives them.
public struct CommandListing: Sendable, Equatable {
    /// What the answer lists, oldest first.
    public var listed: [Command]
    /// The commands this request changes (expired, or delivered), to be written back.
    public var changed: [Command]

    /// `stored`: the child's commands as stored; `deliveringToTarget`: the child is the caller.
    public init(_ stored: [Command], status: CommandStatusFilter?, deliveringToTarget: Bool, at now: Date) throws(FamilySyncError) {
        var listed: [Command] = []
        var changed: [Command] = []
        for stored in stored {
            var command = stored
            command.expireIfDue(at: now)
            let matches = status?.matches(command.status) ?? true
            // Delivered means the child has it: only what this answer hands over.
            if matches, deliveringToTarget, let delivered = try command.applying(.delivered, at: now) { command = delivered }
            if command != stored { changed.append(command) }
            if matches { listed.append(command) }
        }
        self.listed = listed.sorted { ($0.createdAt, $0.commandID.lowercased) < ($1.createdAt, $1.commandID.lowercased) }
        self.changed = changed
    }
}
