/// The dashboard's Mustache templates. `{{x}}` escapes HTML; the one `{{{…}}}` is the QR code's
/// SVG, which the server draws itself. No inline script or style anywhere (the CSP forbids both).
enum WebTemplates {
    static let all: [String: String] = [
        "head": head, "foot": foot, "signIn": signIn, "signInCode": signInCode, "signInEmoji": signInEmoji, "family": family, "member": member, "privacy": privacy, "device": device, "error": error,
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
        {{#members}}<tr><td><a href="/app/members/{{id}}">{{name}}</a></td><td>{{role}}</td><td>{{deviceCount}}</td></tr>{{/members}}
        </table><p><a href="/app/privacy" id="privacy-link">Data, retention and the audit log</a></p></section>
        <section id="devices"><h2>Devices</h2><table>
        <tr><th>Device</th><th>Member</th><th>Platform</th><th>Last sync</th><th>Tracking</th><th>Pending commands</th></tr>
        {{#devices}}<tr data-device="{{id}}"><td>{{#health}}<a href="/app/devices/{{id}}">{{name}}</a>{{/health}}{{^health}}{{name}}{{/health}}{{#isThis}} <span class="muted">(this browser)</span>{{/isThis}}</td><td>{{memberName}}</td><td>{{platform}}</td><td>{{lastSync}}</td>
        <td>{{#health}}<span class="light {{health}}" aria-hidden="true"></span>{{health}}{{/health}}{{^health}}<span class="muted">not tracked</span>{{/health}}</td><td>{{pendingCommands}}</td></tr>{{/devices}}
        </table></section>
        {{> foot}}
        """

    static let member = """
        {{> head}}
        <h1 id="member-name">{{name}}</h1>
        <p class="split" id="platform-split">Today: {{platformSplit}}</p>
        <section id="week"><h2>The week, by day and platform</h2>
        {{{weekChart}}}
        <p class="key" aria-hidden="true">{{#platforms}}<span class="series-{{series}}"></span>{{label}}{{/platforms}}</p>
        <table id="week-table"><tr><th>Day</th>{{#platforms}}<th>{{label}}</th>{{/platforms}}<th>Total</th></tr>
        {{#days}}<tr data-date="{{date}}"><td>{{label}}</td>{{#cells}}<td>{{.}}</td>{{/cells}}<td class="total" data-seconds="{{totalSeconds}}">{{total}}</td></tr>{{/days}}
        </table></section>
        <section id="today"><h2>Today, by category</h2>
        {{{categoryChart}}}
        <table id="category-table"><tr><th>Category</th><th>Time</th><th>Points</th></tr>
        {{#categories}}<tr data-category="{{category}}"><td>{{category}}</td><td data-seconds="{{seconds}}">{{time}}</td><td>{{points}}</td></tr>{{/categories}}
        </table></section>
        <section id="apps"><h2>Top apps this week</h2><table><tr><th>App</th><th>Category</th><th>Time</th><th>Now</th><th>On every device of {{name}}</th></tr>
        {{#apps}}<tr data-app="{{logicalID}}"><td>{{displayName}}</td><td>{{category}}</td><td>{{time}}</td>
        <td>{{#states}}<span class="state" data-state="{{state}}">{{device}}: {{state}}</span> {{/states}}</td><td>
        <form class="inline" method="post" action="/app/members/{{memberID}}/apps"><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="app" value="{{logicalID}}">
        <button type="submit" name="action" value="block" id="block-{{logicalID}}">Block</button> <button type="submit" name="action" value="unblock" id="unblock-{{logicalID}}">Unblock</button></form></td></tr>{{/apps}}
        </table>{{^apps}}<p class="muted">No usage this week.</p>{{/apps}}</section>
        <section id="budgets"><h2>Budgets today</h2>
        {{#budgets}}<p data-budget="{{budgetID}}"><strong>{{remaining}}</strong> left of {{budget}} ({{category}}{{#over}}, over budget{{/over}})</p>{{/budgets}}
        {{^budgets}}<p class="muted">No budget set.</p>{{/budgets}}</section>
        <section id="alerts"><h2>Alerts</h2>
        {{#alerts}}<div data-alert="{{id}}"><p>{{message}} <span class="muted">{{when}}</span></p>
        <form class="inline" method="post" action="/app/alerts/{{id}}/dismiss"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit" id="dismiss-{{id}}">Dismiss</button></form></div>{{/alerts}}
        {{^alerts}}<p class="muted" id="no-alerts">No alerts.</p>{{/alerts}}</section>
        <section id="schedules"><h2>Schedules</h2>
        {{#schedules}}<p data-schedule="{{scheduleID}}"><strong>{{name}}</strong> {{days}}, {{start}}–{{end}}: {{what}}{{^enabled}} <span class="muted">(off)</span>{{/enabled}}</p>{{/schedules}}
        {{^schedules}}<p class="muted">No schedule.</p>{{/schedules}}</section>
        <section id="member-devices"><h2>Devices</h2><table><tr><th>Device</th><th>Platform</th><th>Last sync</th><th>Shielded now</th><th>Not carried out yet</th><th></th></tr>
        {{#devices}}<tr data-device="{{id}}"><td>{{name}}</td><td>{{platform}}</td><td>{{lastSync}}</td><td>{{shielded}}</td>
        <td>{{#pending}}<span class="pending">{{.}}</span> {{/pending}}{{^pending}}<span class="muted">nothing</span>{{/pending}}</td><td>
        <form class="inline" method="post" action="/app/devices/{{id}}/sync"><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="member" value="{{memberID}}"><button type="submit">Request sync</button></form></td></tr>{{/devices}}
        </table></section>
        {{> foot}}
        """

    static let device = """
        {{> head}}
        <h1 id="device-name">{{name}}</h1>
        <p>{{platform}} · {{memberName}} · {{timeZone}}</p>
        <section id="health"><h2>Is tracking working? ({{date}})</h2>
        <p id="status"><span class="light {{status}}" aria-hidden="true"></span><strong>{{status}}</strong>, last heartbeat {{lastHeartbeat}}</p>
        <table><tr><th>Memory</th><th>Missed notifications</th><th>Sequence restarts</th><th>Errors today</th><th>Minutes without data</th></tr>
        <tr><td>{{memory}}</td><td>{{missedNotifications}}</td><td>{{sequenceResets}}</td><td>{{errorsToday}}</td><td>{{gapMinutes}}</td></tr></table>
        <p><a href="/app/devices/{{deviceID}}/health.txt" id="health-export" download>Download the diagnostics (text)</a></p></section>
        <section id="gaps-today"><h2>Gaps today</h2>
        {{{timeline}}}
        <table id="gap-table"><tr><th>From</th><th>To</th><th>Minutes</th><th>What</th></tr>
        {{#gaps}}<tr data-method="{{method}}"><td>{{from}}</td><td>{{to}}</td><td>{{minutes}}</td><td>{{kind}}</td></tr>{{/gaps}}
        </table>{{^gaps}}<p class="muted" id="no-gaps">No gap today.</p>{{/gaps}}</section>
        <section id="errors"><h2>The extension's last errors</h2><table>
        <tr><th>When</th><th>Event</th><th>Action</th><th>Outcome</th><th>What it said</th></tr>
        {{#errors}}<tr><td>{{when}}</td><td>{{event}}</td><td>{{action}}</td><td>{{outcome}}</td><td>{{description}}</td></tr>{{/errors}}
        </table>{{^errors}}<p class="muted" id="no-errors">No error reported.</p>{{/errors}}</section>
        {{> foot}}
        """

    static let privacy = """
        {{> head}}
        <h1>Your family's data</h1>
        {{#saved}}<p class="ok" id="saved" role="status">Saved. Shorter periods apply within the hour.</p>{{/saved}}
        <section id="retention"><h2>How long it is kept</h2>
        <form method="post" action="/app/privacy/retention"><input type="hidden" name="csrf" value="{{frame.csrf}}">
        <table><tr><th>What</th><th>Days kept</th><th>Set by</th></tr>
        {{#retention}}<tr data-kind="{{kind}}"><td><label for="days-{{kind}}">{{label}}</label></td>
        <td><input type="number" min="1" max="{{maximumDays}}" id="days-{{kind}}" name="{{kind}}" value="{{familyDays}}" placeholder="{{maximumDays}}"></td>
        <td>{{#familySet}}you ({{days}} days){{/familySet}}{{^familySet}}the server's maximum{{/familySet}}</td></tr>{{/retention}}
        </table><p class="muted">Leave a field empty to keep that kind the server's maximum, {{maximumDays}} days.</p>
        <button class="primary" type="submit" id="save-retention">Save</button></form></section>
        <section id="export"><h2>Download</h2>
        <p><a href="/app/privacy/export" id="export-family" download>Everything about the family</a> <span class="muted">(a .tar of JSON Lines)</span></p>
        {{#members}}<p><a href="/app/privacy/export?member={{id}}" data-member="{{id}}" download>Everything about {{name}}</a></p>{{/members}}
        </section>
        <section id="audit"><h2>Who changed what</h2><table>
        <tr><th>When</th><th>Who</th><th>From</th><th>What</th><th>Of</th><th>For</th></tr>
        {{#events}}<tr data-event="{{id}}"><td>{{when}}</td><td>{{who}}</td><td>{{address}}</td><td>{{action}}</td><td>{{subject}}</td><td>{{concerns}}</td></tr>{{/events}}
        </table>{{^events}}<p class="muted" id="no-events">Nothing yet.</p>{{/events}}</section>
        {{> foot}}
        """

    static let error = """
        {{> head}}
        <section class="error"><h1>{{frame.title}}</h1><p id="reason">{{reason}}</p><p class="muted">{{code}}</p><p><a href="/app/">Back to the dashboard</a></p></section>
        {{> foot}}
        """
}
