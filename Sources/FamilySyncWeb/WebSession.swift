import FamilySyncClient
import FamilySyncCore
import FamilySyncServer
import Foundation
import Hummingbird

/// One browser request's view of its cookies: what it sent, and the cookies the answer will set.
/// A signed-in browser's form token is bound to its session (`WebCookies.formToken(for:)`); one
/// not signed in is given a random token, so that its sign-in form can be checked, and a new one
/// when it signs out.
struct WebSession {
    let cookies: WebCookies
    private var jar: [String: String]
    private(set) var setCookies: [Cookie] = []
    private(set) var csrf: String
    /// The words of this request's pages, in its language (`WebLanguage.choose`).
    let strings: WebStrings
    /// The page asked for, for the language switch to come back to.
    let path: String

    init(_ request: Request, _ cookies: WebCookies) {
        self.cookies = cookies
        jar = WebCookies.read(request)
        strings = WebStrings(Self.language(request, cookies: jar))
        path = request.uri.path
        if let session = jar[WebCookies.session], !session.isEmpty, let bound = cookies.formToken(for: session) {
            // Signed in: the session's token, whatever the cookie held (a planted one, or one
            // from before the sign-in), which is set to it.
            csrf = bound
            if jar[WebCookies.csrf] != bound { setCookies.append(cookies.set(WebCookies.csrf, bound)) }
        } else if let token = jar[WebCookies.csrf], !token.isEmpty {
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
        // A page rendered after the sign-out carries the new token.
        csrf = WebCookies.newCSRFToken()
        set(WebCookies.csrf, csrf)
    }

    /// The SDK as this browser's device, answered in process; nil without a live session.
    func client(_ api: APIResponder, _ context: FamilySyncRequestContext) async throws -> FamilySyncClient? {
        guard let token = cookie(WebCookies.session), let credential = try await cookies.credential(ofSession: token) else { return nil }
        return FamilySyncClient(serverURL: InProcessTransport.baseURL, credential: credential, transport: InProcessTransport(api: api, context: context))
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
        try WebCookies.checkCSRF(form: form.csrf, expected: csrf)
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
