import FamilySyncPostgres
import PostgresNIO

extension Database {
    /// The stores' database in a test that drives them directly: a lease waits as long as a busy
    /// test machine takes to open a connection. The three seconds a serving instance waits
    /// (`Database.connectionWait`) are for answering clients, and the outage and overload tests
    /// hold the server to them; here a slow connect is the machine's, not a database away.
    public static func underTest(_ client: PostgresClient) -> Database {
        Database(client: client, leaseWait: .seconds(60))
    }
}
