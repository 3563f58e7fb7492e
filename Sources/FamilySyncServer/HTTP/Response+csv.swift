import Hummingbird
import NIOCore

extension Response {
    /// A report as RFC 4180 CSV with its header row (the device's and the member's reports).
    static func csv(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/csv; charset=utf-8; header=present"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
