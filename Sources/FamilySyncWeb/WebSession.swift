import FamilySyncClient
import FamilySyncCore
import FamilySyncServer
import Foundation
import Hummingbird

/// One browser request's view of its cookies: what it sent, and the cookies the answer will set.
/// A browser without a form token is given one, so that its next form can be checked.
struct WebSession {
    let cookies: WebCookies
    private var jar: [String: String]
    private(set) var setCookies: [Cookie] = []
    let csrf: String
    /// The words of this request's pages, in its language (`WebLanguage.choose`).
    let strings: WebStrings
    /// The page asked for, for the language switch to come back to.
    let path: String

    init(_ request: Request, _ cookies: WebCookies) {
        self.cookies = cookies
        jar = WebCookies.read(request)
        strings = WebStrings(Self.language(request, cookies: jar))
        path = request.uri.path
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

    func frame(_ title: String, signedIn: Bool = false, refreshSeconds: Int? = nil, liveToken: String? = nil) -> WebPages.Frame {
        let other = strings.language == .en ? WebLanguage.ko : .en
        return WebPages.Frame(
            title: title, csrf: csrf, lang: strings.language.rawValue, t: strings.catalog, otherLanguage: other.rawValue, otherLanguageName: other.name,
            path: path, signedIn: signedIn, refreshSeconds: refreshSeconds, liveToken: liveToken
        )
    }

    /// `303 See Other` to `path`, with the cookies set so far.
    func redirect(_ path: String) -> Response {
        var response = Response(status: .seeOther, headers: [.location: path])
        for cookie in setCookies { response.setCookie(cookie) }
        return response
    }

    /// A state-changing form, decoded as `Form` by Hummingbird's `URLEncodedFormDecoder`. It must
    /// carry the cookie's token (`csrf`), or nothing is done (403); a body that is no form, or a
    /// field given twice or as a list, is a bad request (400).
    @discardableResult
    func checkForm<Form: WebForm>(_ request: Request, as type: Form.Type = TokenForm.self) async throws -> Form {
        var request = request
        let body = try await request.collectBody(upTo: 16 << 10)
        let form: Form
        do {
            form = try URLEncodedFormDecoder().decode(Form.self, from: String(buffer: body))
        } catch {
            throw FamilySyncError.badRequest("This form could not be read; reload the page and try again.")
        }
        try WebCookies.checkCSRF(form: form.csrf, cookies: jar)
        return form
    }
}

/// A state-changing form: every one carries the page's token, `csrf` (`WebSession.checkForm`).
/// Fields are optional, so that a missing one is refused by the action with its own reason.
protocol WebForm: Decodable {
    var csrf: String? { get }
}

/// A form that is only its token: sign in, sign out, confirm a pairing, dismiss an alert.
struct TokenForm: WebForm {
    var csrf: String?
}
