import FamilySyncClient
import FamilySyncCore
import FamilySyncServer
import Foundation
import HTTPTypes
import Hummingbird

/// One browser request's view of its cookies: what it sent, and the `Set-Cookie`s the answer will
/// carry. A browser without a form token is given one, so that its next form can be checked.
struct WebSession {
    let cookies: WebCookies
    private var jar: [String: String]
    private(set) var setCookies: [HTTPField] = []
    let csrf: String

    init(_ request: Request, _ cookies: WebCookies) {
        self.cookies = cookies
        jar = WebCookies.read(request)
        if let token = jar[WebCookies.csrf], !token.isEmpty {
            csrf = token
        } else {
            csrf = WebCookies.newCSRFToken()
            setCookies.append(cookies.set(WebCookies.csrf, csrf))
        }
    }

    func cookie(_ name: String) -> String? {
        jar[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    mutating func set(_ name: String, _ value: String, maxAge: Int? = nil) {
        jar[name] = value
        setCookies.append(cookies.set(name, value, maxAge: maxAge))
    }

    mutating func clear(_ name: String) {
        jar[name] = nil
        setCookies.append(cookies.clear(name))
    }

    mutating func signOut() {
        clear(WebCookies.session)
        clear(WebCookies.pairing)
    }

    /// The SDK as this browser's device, answered in process; nil without a session.
    func client(_ api: APIResponder, _ context: FamilySyncRequestContext) -> FamilySyncClient? {
        cookie(WebCookies.session).map {
            FamilySyncClient(serverURL: InProcessTransport.baseURL, credential: $0, transport: InProcessTransport(api: api, context: context))
        }
    }

    func frame(_ title: String, signedIn: Bool = false, refreshSeconds: Int? = nil) -> WebPages.Frame {
        WebPages.Frame(title: title, csrf: csrf, signedIn: signedIn, refreshSeconds: refreshSeconds)
    }

    /// `303 See Other` to `path`, with the cookies set so far.
    func redirect(_ path: String) -> Response {
        var fields = HTTPFields(setCookies)
        fields[.location] = path
        return Response(status: .seeOther, headers: fields)
    }

    /// A state-changing form's fields. It must carry the cookie's token (`csrf`), or nothing is done.
    @discardableResult
    func checkForm(_ request: Request) async throws -> [String: String] {
        var request = request
        let body = try await request.collectBody(upTo: 16 << 10)
        var items = URLComponents()
        items.percentEncodedQuery = String(buffer: body).replacingOccurrences(of: "+", with: "%20")
        var fields: [String: String] = [:]
        for item in items.queryItems ?? [] where fields[item.name] == nil { fields[item.name] = item.value ?? "" }
        try WebCookies.checkCSRF(form: fields["csrf"], cookies: jar)
        return fields
    }
}

/// How the dashboard writes times.
enum WebFormat {
    /// "2 minutes ago", "3 hours ago", "never".
    static func ago(_ date: Date?, now: Date) -> String {
        guard let date else { return "never" }
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        func plural(_ count: Int, _ unit: String) -> String { "\(count) \(unit)\(count == 1 ? "" : "s") ago" }
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return plural(seconds / 60, "minute")
        case ..<86_400: return plural(seconds / 3600, "hour")
        default: return plural(seconds / 86_400, "day")
        }
    }
}
