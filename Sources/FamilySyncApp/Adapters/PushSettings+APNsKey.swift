import FamilySyncServer
import JWTKit

extension PushSettings {
    /// Checks that `pem` is a P-256 private key jwt-kit can sign with (the `.p8` file).
    public static func checkAPNsKey(_ pem: String) throws {
        _ = try ES256PrivateKey(pem: pem)
    }
}
