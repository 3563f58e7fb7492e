/// The dashboard's Mustache templates. `{{x}}` escapes HTML; the one `{{{…}}}` is the QR code's
/// SVG, which the server draws itself. No inline script or style anywhere (the CSP forbids both).
enum WebTemplates {
    static let all: [String: String] = [
        "head": head, "foot": foot, "signIn": signIn, "signInCode": signInCode, "signInEmoji": signInEmoji, "family": family, "error": error,
    ]

    static let head = """
        {{#frame}}<!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        {{#refreshSeconds}}<meta http-equiv="refresh" content="{{refreshSeconds}}">{{/refreshSeconds}}
        <title>{{title}} · FamilySync</title><link rel="stylesheet" href="/app/app.css"></head>
        <body><header><a href="/app/">FamilySync</a>
        {{#signedIn}}<form class="inline" method="post" action="/app/sign-out"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" id="sign-out">Sign out</button></form>{{/signedIn}}
        </header><main>{{/frame}}
        """

    static let foot = "</main></body></html>\n"

    static let signIn = """
        {{> head}}
        <section><h1>Sign in as a parent</h1>
        <p>This browser becomes a parent device of your family. It shows a code; a parent device takes it and confirms.</p>
        {{#message}}<p class="error" id="message">{{message}}</p>{{/message}}
        <form method="post" action="/app/sign-in"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button class="primary" type="submit" id="start">Show a sign-in code</button></form>
        </section>
        {{> foot}}
        """

    static let signInCode = """
        {{> head}}
        <section><h1>Sign-in code</h1>
        <p class="code" id="code">{{code}}</p>
        {{#qrSVG}}<div class="qr" role="img" aria-label="QR code of the sign-in code {{code}}">{{{qrSVG}}}</div>{{/qrSVG}}
        <p>On a parent device, scan the QR code in the app, or run <code>familysync pair sign-in {{code}}</code>.</p>
        <p class="muted">Valid until {{expiresAt}}. This page updates by itself.</p>
        </section>
        {{> foot}}
        """

    static let signInEmoji = """
        {{> head}}
        <section><h1>Compare the emoji</h1>
        <p class="emoji" id="emoji" aria-label="Verification emoji">{{emoji}}</p>
        <p>Your parent device shows the same emoji. If they match, confirm this browser there (<code>familysync pair confirm {{pairingID}}</code>).</p>
        <p class="muted">This page goes on to your family once you have confirmed.</p>
        </section>
        {{> foot}}
        """

    static let family = """
        {{> head}}
        <h1>Your family</h1>
        {{#hasPairings}}<section id="pairings"><h2>Waiting to join</h2><table>
        <tr><th>Device</th><th>Emoji</th><th></th></tr>
        {{#pairings}}<tr><td>{{deviceName}}</td><td class="emoji">{{emoji}}</td><td><form class="inline" method="post" action="/app/pairings/{{id}}/confirm"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit">Confirm</button></form></td></tr>{{/pairings}}
        </table></section>{{/hasPairings}}
        <section id="members"><h2>Members</h2><table>
        <tr><th>Name</th><th>Role</th><th>Devices</th></tr>
        {{#members}}<tr><td>{{name}}</td><td>{{role}}</td><td>{{deviceCount}}</td></tr>{{/members}}
        </table></section>
        <section id="devices"><h2>Devices</h2><table>
        <tr><th>Device</th><th>Member</th><th>Platform</th><th>Last sync</th><th>Tracking</th><th>Pending commands</th></tr>
        {{#devices}}<tr data-device="{{id}}"><td>{{name}}{{#isThis}} <span class="muted">(this browser)</span>{{/isThis}}</td><td>{{memberName}}</td><td>{{platform}}</td><td>{{lastSync}}</td>
        <td>{{#health}}<span class="light {{health}}" aria-hidden="true"></span>{{health}}{{/health}}{{^health}}<span class="muted">not tracked</span>{{/health}}</td><td>{{pendingCommands}}</td></tr>{{/devices}}
        </table></section>
        {{> foot}}
        """

    static let error = """
        {{> head}}
        <section class="error"><h1>{{frame.title}}</h1><p id="reason">{{reason}}</p><p class="muted">{{code}}</p><p><a href="/app/">Back to the dashboard</a></p></section>
        {{> foot}}
        """
}
