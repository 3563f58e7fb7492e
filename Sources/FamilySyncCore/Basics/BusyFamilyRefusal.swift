/// PROTOCOL §1.2: a family whose line of writes on an instance is full is answered
/// `TRY_AGAIN_LATER` (`family_busy`) for its next write. On the routes here every request writes
/// in the family's turn, so the instance can say so before it reads the body: a client that
/// ignores `Retry-After` then costs it an authentication and a short answer, not a parse, a key
/// lookup and a validation for a write that would be refused anyway. Other writes (a quiet
/// heartbeat, a device's push token) take no turn and are served as before.
public enum BusyFamilyRefusal {
    /// The routes, as the router names them, whose every request writes in the family's turn: a
    /// device's repeatable writes (`IdempotencyKey.routes`), but for the heartbeat, whose quiet
    /// form takes no turn.
    public static let routes: Set<String> = IdempotencyKey.routes.subtracting(["POST /v1/devices/me/health"])
}
