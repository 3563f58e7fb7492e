import FamilySyncCore
import PostgresNIO
import _ConnectionPoolModule

/// Turns database failures into the domain's error, so the HTTP layer maps one type only.
public enum DatabaseErrorTranslation {
    /// SQLSTATE classes that mean "the database is not available now", not "your request is wrong":
    /// 08 connection exception, 53 insufficient resources, 57P01–57P03 shutdown/cannot connect now.
    /// On Citus, 08006 is also the coordinator's word for a worker it cannot reach: the families
    /// whose shards are there get 503 until it is back (docs/operations.md, "Losing a worker").
    static let unavailableStates: Set<String> = ["57P01", "57P02", "57P03"]

    /// Citus's coordinator relays a worker lost in the middle of a transaction as XX000 (internal
    /// error), told apart only by its message (in English, as Citus writes them; PostgreSQL's own
    /// in the relayed ones too, with `lc_messages` left at C). Seen on Citus 13.2.2 with a worker
    /// stopped under load: "failure on connection marked as essential: host:port" and the
    /// worker's "terminating connection due to administrator command" (its "connection to the
    /// remote node … failed" comes as 08006, above, but is listed in case another path raises it).
    static let remoteNodeLost = [
        "failure on connection marked as essential", "terminating connection due to administrator command", "connection to the remote node",
    ]

    /// `TRY_AGAIN_LATER` for a database that cannot be reached or is going away, or a transaction
    /// that collided with another (40001, 40P01); `CONFLICT` for a unique key taken by a concurrent
    /// writer (23505); nil for anything else, which the caller treats as a bug (`INTERNAL_ERROR`).
    /// A `FamilySyncError` is itself: every lease of the pool has translated what it throws
    /// already, and a caller asking again must get the same answer.
    public static func translate(_ error: any Error) -> FamilySyncError? {
        if let error = error as? FamilySyncError {
            return error
        }
        if let error = error as? PostgresTransactionError {
            return (error.closureError ?? error.beginError ?? error.commitError).flatMap(translate)
        }
        // The pool's own errors (it is shutting down, or has given up connecting for now) reach
        // callers as they are; a cancelled lease only follows a cancelled request.
        if error is ConnectionPoolError {
            return TryAgainReason.databaseUnavailable.error
        }
        guard let error = error as? PSQLError else {
            return nil
        }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown, .sslUnsupported:
            return TryAgainReason.databaseUnavailable.error
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            if state.hasPrefix("08") || state.hasPrefix("53") || unavailableStates.contains(state) {
                return TryAgainReason.databaseUnavailable.error
            }
            if state == "XX000", let message = error.serverInfo?[.message], remoteNodeLost.contains(where: message.hasPrefix) {
                return TryAgainReason.databaseUnavailable.error
            }
            if state == "40001" || state == "40P01" {
                return .collided
            }
            // A unique key taken by a concurrent writer: the domain's conflict, not a bug.
            if state == "23505" {
                return FamilySyncError(.conflict, "Another request made the same thing at the same moment; read it again.")
            }
            return nil
        default:
            return nil
        }
    }

    /// Whether `error` says the connection itself is gone (closed by either side, or never made).
    /// Of the server's errors, only one at FATAL or PANIC ends the session (57P01 on a shutdown,
    /// say). An ERROR leaves it open in a failed transaction, whatever its SQLSTATE: Citus's
    /// coordinator reports a worker it cannot reach as an ERROR 08006 ("connection to the remote
    /// node … failed"), and its connection to us is well. Taken for lost, it skipped the ROLLBACK
    /// and went back to the pool aborted, and the next request on it, any family's, would fail
    /// 25P02 (its BEGIN does, tried by hand on the cluster).
    static func isConnectionLost(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown: return true
        default: return ["FATAL", "PANIC"].contains(error.serverInfo?[.severity] ?? "")
        }
    }

    /// The database server's own message, or for a failure without one (a connection refused or
    /// cut) PostgresNIO's code and the socket's error, for operators' logs and exit messages only:
    /// PSQLError's description hides both so that they cannot reach a client by accident. Never
    /// the statement or its values.
    public static func describeForOperator(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let message = error.serverInfo?[.message] { return message }
        return "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
    }
}
