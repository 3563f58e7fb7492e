/// The dashboard's Mustache templates. `{{x}}` escapes HTML; the one `{{{…}}}` is the QR code's
/// SVG, which the server draws itself. No inline script or style anywhere (the CSP forbids both).
enum WebTemplates {
    static let all: [String: String] = [
        "head": head, "foot": foot, "signIn": signIn, "signInCode": signInCode, "signInEmoji": signInEmoji, "family": family, "member": member, "privacy": privacy, "device": device, "error": error,
        "budgetForm": budgetForm, "appSettings": appSettings, "memberSettings": memberSettings, "familySettings": familySettings, "scheduleForm": scheduleForm, "formError": formError,
    ]

    static let head = """
        {{#frame}}<!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        {{#refreshSeconds}}<meta http-equiv="refresh" content="{{refreshSeconds}}">{{/refreshSeconds}}
        <title>{{title}} · FamilySync</title><link rel="stylesheet" href="/app/app.css">{{#liveToken}}<script src="/app/live.js" defer></script>{{/liveToken}}</head>
        <body{{#liveToken}} data-live="{{liveToken}}"{{/liveToken}}><header><a href="/app/">FamilySync</a>
        {{#signedIn}}<form class="inline" method="post" action="/app/sign-out"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" id="sign-out">Sign out</button></form>{{/signedIn}}
        </header><main>{{#liveToken}}<p id="live-status" class="visually-hidden" role="status" data-updated="Updated."></p>{{/liveToken}}{{/frame}}
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
        {{#askName}}<section id="ask-name" data-typed><h2>What should your family call you?</h2>
        <p>You are named {{current}} here, after the device you started with.</p>
        <form method="post" action="/app/members/{{memberID}}/name"><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="back" value="family">
        <label for="your-name">Your name</label> <input id="your-name" name="name" autocomplete="given-name"> <button class="primary" type="submit" id="save-your-name">Save</button>
        <button type="submit" name="keep" value="1" id="keep-name">Keep {{current}}</button></form></section>{{/askName}}
        {{#hasPairings}}<section id="pairings"><h2>Waiting to join</h2><table>
        <tr><th>Device</th><th>Emoji</th><th></th></tr>
        {{#pairings}}<tr><td>{{deviceName}}</td><td class="emoji">{{emoji}}</td><td><form class="inline" method="post" action="/app/pairings/{{id}}/confirm"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit">Confirm</button></form></td></tr>{{/pairings}}
        </table></section>{{/hasPairings}}
        <section id="members"><h2>Members</h2><table>
        <tr><th>Name</th><th>Role</th><th>Devices</th></tr>
        {{#members}}<tr><td><a href="/app/members/{{id}}">{{name}}</a></td><td>{{role}}</td><td>{{deviceCount}}</td></tr>{{/members}}
        </table><p><a href="/app/family" id="family-settings-link">Categories and the recovery code</a> · <a href="/app/privacy" id="privacy-link">Data, retention and the audit log</a></p></section>
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
        <p><a href="/app/members/{{memberID}}/settings" id="member-settings">Name, PIN and devices</a></p>
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
        {{#apps}}<tr data-app="{{logicalID}}"><td><a href="/app/members/{{memberID}}/apps/{{path}}" id="app-{{logicalID}}">{{displayName}}</a></td><td>{{category}}</td><td>{{time}}</td>
        <td>{{#states}}<span class="state" data-state="{{state}}">{{device}}: {{state}}</span> {{/states}}</td><td>
        <form class="inline" method="post" action="/app/members/{{memberID}}/apps"><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="app" value="{{logicalID}}">
        <button type="submit" name="action" value="block" id="block-{{logicalID}}">Block</button> <button type="submit" name="action" value="unblock" id="unblock-{{logicalID}}">Unblock</button></form></td></tr>{{/apps}}
        </table>{{^apps}}<p class="muted">No usage this week.</p>{{/apps}}</section>
        <section id="budgets"><h2>Budgets</h2>
        {{#budgets}}<div class="row" data-budget="{{budgetID}}"><p><strong>{{category}}</strong>: {{allowance}}.
        {{#remaining}}Today <strong>{{remaining}}</strong> left of {{budget}}{{#over}}, <span class="over">over budget</span>{{/over}}.{{/remaining}}{{^enabled}} <span class="muted">(off)</span>{{/enabled}}</p>
        <p><a href="/app/members/{{memberID}}/budgets/{{budgetID}}" id="edit-budget-{{budgetID}}">Edit</a>
        <form class="inline" method="post" action="/app/members/{{memberID}}/budgets/{{budgetID}}/delete"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit" id="delete-budget-{{budgetID}}">Delete</button></form></p></div>{{/budgets}}
        {{^budgets}}<p class="muted">No budget set.</p>{{/budgets}}
        <p><a class="button" href="/app/members/{{memberID}}/budgets/new" id="new-budget">Add a budget</a></p></section>
        <section id="alerts"><h2>Alerts</h2>
        {{#alerts}}<div data-alert="{{id}}"><p>{{message}} <span class="muted">{{when}}</span></p>
        <form class="inline" method="post" action="/app/alerts/{{id}}/dismiss"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit" id="dismiss-{{id}}">Dismiss</button></form></div>{{/alerts}}
        {{^alerts}}<p class="muted" id="no-alerts">No alerts.</p>{{/alerts}}</section>
        <section id="schedules"><h2>Schedules <span class="muted">({{timeZone}})</span></h2>
        {{#schedules}}<div class="row" data-schedule="{{scheduleID}}"><p><strong>{{name}}</strong> {{days}}, {{start}}–{{end}}: {{what}}{{^enabled}} <span class="muted">(off)</span>{{/enabled}}</p>
        <p><a href="/app/members/{{memberID}}/schedules/{{scheduleID}}" id="edit-schedule-{{scheduleID}}">Edit</a>
        <form class="inline" method="post" action="/app/members/{{memberID}}/schedules/{{scheduleID}}/delete"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit" id="delete-schedule-{{scheduleID}}">Delete</button></form></p></div>{{/schedules}}
        {{^schedules}}<p class="muted">No schedule.</p>{{/schedules}}
        <p><a class="button" href="/app/members/{{memberID}}/schedules/new" id="new-schedule">Add a schedule</a></p></section>
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
        <section id="retention" data-typed><h2>How long it is kept</h2>
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

    /// A refusal that names no field of the form, above it.
    static let formError = """
        {{#error}}<p class="error" id="form-error" role="alert">{{error}}</p>{{/error}}
        """

    static let budgetForm = """
        {{> head}}
        <h1>{{#isNew}}New budget{{/isNew}}{{^isNew}}Edit budget{{/isNew}} for {{memberName}}</h1>
        <section><form method="post" action="/app/members/{{memberID}}/budgets" novalidate>{{> formError}}
        <input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="budgetID" value="{{budgetID}}">
        <p><label for="category">What it counts</label><br><select id="category" name="category"{{#category.error}} aria-invalid="true" aria-describedby="error-category"{{/category.error}}>
        {{#categories}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/categories}}</select>
        {{#category.error}}<span class="field-error" id="error-category">{{category.error}}</span>{{/category.error}}</p>
        <fieldset><legend>Allowance</legend>
        {{#periods}}<label class="choice"><input type="radio" name="period" value="{{value}}" id="period-{{value}}"{{#selected}} checked{{/selected}}> {{label}}</label> {{/periods}}
        {{#period.error}}<span class="field-error" id="error-period">{{period.error}}</span>{{/period.error}}
        <p><label for="dailyMinutes">Minutes a day</label><br><input type="number" inputmode="numeric" id="dailyMinutes" name="dailyMinutes" value="{{dailyMinutes.value}}"{{#dailyMinutes.error}} aria-invalid="true" aria-describedby="error-dailyMinutes"{{/dailyMinutes.error}}>
        {{#dailyMinutes.error}}<span class="field-error" id="error-dailyMinutes">{{dailyMinutes.error}}</span>{{/dailyMinutes.error}}</p>
        <fieldset class="weekdays"><legend>Other minutes on some days (empty: minutes a day)</legend>
        {{#weekdays}}<span class="day"><label for="minutes-{{key}}">{{label}}</label> <input type="number" inputmode="numeric" id="minutes-{{key}}" name="{{key}}" value="{{field.value}}"></span> {{/weekdays}}
        {{#weekdayMinutes.error}}<span class="field-error" id="error-weekdayMinutes">{{weekdayMinutes.error}}</span>{{/weekdayMinutes.error}}</fieldset>
        <p><label for="monthlyHours">Hours a month</label><br><input type="number" inputmode="numeric" id="monthlyHours" name="monthlyHours" value="{{monthlyHours.value}}" aria-describedby="monthly-formula"{{#monthlyHours.error}} aria-invalid="true"{{/monthlyHours.error}}>
        {{#monthlyHours.error}}<span class="field-error" id="error-monthlyHours">{{monthlyHours.error}}</span>{{/monthlyHours.error}}
        <br><span class="muted" id="monthly-formula">Spread evenly over the month's days: {{monthlyFormula}}</span></p></fieldset>
        <p><label for="alertAtPercent">Alert at (percent of the allowance)</label><br><input id="alertAtPercent" name="alertAtPercent" value="{{alertAtPercent.value}}"{{#alertAtPercent.error}} aria-invalid="true" aria-describedby="error-alertAtPercent"{{/alertAtPercent.error}}>
        {{#alertAtPercent.error}}<span class="field-error" id="error-alertAtPercent">{{alertAtPercent.error}}</span>{{/alertAtPercent.error}}</p>
        <p><label class="choice"><input type="checkbox" id="isExcluded" name="isExcluded"{{#isExcluded.checked}} checked{{/isExcluded.checked}}> This category does not count towards the all-screen-time budget</label>
        {{#isExcluded.error}}<span class="field-error" id="error-isExcluded">{{isExcluded.error}}</span>{{/isExcluded.error}}</p>
        <p><label class="choice"><input type="checkbox" id="enabled" name="enabled"{{#enabled.checked}} checked{{/enabled.checked}}> On</label></p>
        <p><button class="primary" type="submit" id="save-budget">Save</button> <a href="/app/members/{{memberID}}#budgets">Cancel</a></p>
        </form></section>
        {{> foot}}
        """

    static let familySettings = """
        {{> head}}
        <h1>Family settings</h1>
        {{#saved}}<p class="ok" id="saved" role="status">Saved.</p>{{/saved}}
        <section id="categories"><h2>Categories</h2><table><tr><th>Category</th><th>Id</th><th>Counts as</th></tr>
        {{#categories}}<tr data-category="{{id}}"><td>{{name}}</td><td><code>{{id}}</code></td><td>{{kind}}{{#own}} <span class="muted">(your own)</span>{{/own}}</td></tr>{{/categories}}
        </table>
        <h3>Add a category, or rename one</h3>
        <form method="post" action="/app/family/categories" novalidate>{{> formError}}<input type="hidden" name="csrf" value="{{frame.csrf}}">
        <p><label for="category-id">Id (x- and up to 64 of a-z, 0-9, _ and -; a built-in's id renames it)</label><br><input id="category-id" name="id" value="{{id.value}}"{{#id.error}} aria-invalid="true" aria-describedby="error-id"{{/id.error}}>
        {{#id.error}}<span class="field-error" id="error-id">{{id.error}}</span>{{/id.error}}</p>
        <p><label for="displayName">Name</label><br><input id="displayName" name="displayName" value="{{displayName.value}}"{{#displayName.error}} aria-invalid="true" aria-describedby="error-displayName"{{/displayName.error}}>
        {{#displayName.error}}<span class="field-error" id="error-displayName">{{displayName.error}}</span>{{/displayName.error}}</p>
        <p><label for="kind">Counts as</label><br><select id="kind" name="kind"{{#kind.error}} aria-invalid="true" aria-describedby="error-kind"{{/kind.error}}>{{#kinds}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/kinds}}</select>
        {{#kind.error}}<span class="field-error" id="error-kind">{{kind.error}}</span>{{/kind.error}}</p>
        <p><label for="defaultDailyMinutes">Default minutes a day (optional)</label><br><input type="number" inputmode="numeric" id="defaultDailyMinutes" name="defaultDailyMinutes" value="{{defaultDailyMinutes.value}}"{{#defaultDailyMinutes.error}} aria-invalid="true" aria-describedby="error-defaultDailyMinutes"{{/defaultDailyMinutes.error}}>
        {{#defaultDailyMinutes.error}}<span class="field-error" id="error-defaultDailyMinutes">{{defaultDailyMinutes.error}}</span>{{/defaultDailyMinutes.error}}</p>
        <p><button class="primary" type="submit" id="save-category">Save</button></p></form></section>
        <section id="recovery"><h2>Recovery code</h2>
        {{#recoveryCode}}<p class="ok" role="status">Your new recovery code. Write it down now: it is shown this once, and the old one no longer works.</p><p class="code" id="recovery-code">{{recoveryCode}}</p>{{/recoveryCode}}
        <p>With the recovery code a parent who lost every device gets the family back (<code>familysync family recover</code>).</p>
        <form method="post" action="/app/family/recovery-code"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit" id="new-recovery-code">Issue a new recovery code</button></form></section>
        {{> foot}}
        """

    static let memberSettings = """
        {{> head}}
        <h1>{{memberName}}: settings</h1>
        {{#done}}<p class="ok" id="done" role="status">{{done}}</p>{{/done}}{{> formError}}
        <section id="name-section"><h2>Name</h2>
        <form method="post" action="/app/members/{{memberID}}/name" novalidate><input type="hidden" name="csrf" value="{{frame.csrf}}">
        <p><label for="name">Name</label><br><input id="name" name="name" value="{{name.value}}" autocomplete="off"{{#name.error}} aria-invalid="true" aria-describedby="error-name"{{/name.error}}>
        {{#name.error}}<span class="field-error" id="error-name">{{name.error}}</span>{{/name.error}}</p>
        <p><button type="submit" id="save-name">Rename</button></p></form></section>
        <section id="pin-section"><h2>Parent PIN</h2>
        <p>{{#hasPIN}}A PIN is set: parent mode on {{memberName}}'s devices asks for it.{{/hasPIN}}{{^hasPIN}}No PIN is set.{{/hasPIN}}</p>
        <form method="post" action="/app/members/{{memberID}}/pin" novalidate><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="action" value="set">
        <p><label for="pin">{{#hasPIN}}New PIN{{/hasPIN}}{{^hasPIN}}PIN{{/hasPIN}} (4 to 8 digits)</label><br><input type="password" inputmode="numeric" autocomplete="new-password" id="pin" name="pin"{{#pin.error}} aria-invalid="true" aria-describedby="error-pin"{{/pin.error}}>
        {{#pin.error}}<span class="field-error" id="error-pin">{{pin.error}}</span>{{/pin.error}}</p>
        <p><button type="submit" id="set-pin">{{#hasPIN}}Change the PIN{{/hasPIN}}{{^hasPIN}}Set the PIN{{/hasPIN}}</button></p></form>
        {{#hasPIN}}<form method="post" action="/app/members/{{memberID}}/pin"><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="action" value="clear"><button type="submit" id="clear-pin">Clear the PIN</button></form>{{/hasPIN}}
        </section>
        <section id="devices-section"><h2>Devices</h2><table><tr><th>Device</th><th>Platform</th><th>Last sync</th><th>Move to</th><th></th></tr>
        {{#devices}}<tr data-device="{{id}}"><td>{{name}}{{#isThis}} <span class="muted">(this browser)</span>{{/isThis}}</td><td>{{platform}}</td><td>{{lastSync}}</td>
        <td>{{#canMove}}<form class="inline" method="post" action="/app/devices/{{id}}/move"><input type="hidden" name="csrf" value="{{frame.csrf}}"><label class="visually-hidden" for="move-{{id}}">Move {{name}} to</label>
        <select id="move-{{id}}" name="member">{{#targets}}<option value="{{value}}">{{label}}</option>{{/targets}}</select> <button type="submit" id="move-button-{{id}}">Move</button></form>{{/canMove}}{{^canMove}}<span class="muted">no other member of this role</span>{{/canMove}}</td>
        <td>{{^isThis}}<form class="inline" method="post" action="/app/devices/{{id}}/revoke"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit" id="revoke-{{id}}">Revoke</button></form>{{/isThis}}</td></tr>{{/devices}}
        </table>{{^devices}}<p class="muted">No device.</p>{{/devices}}</section>
        <p><a href="/app/members/{{memberID}}">Back to {{memberName}}</a></p>
        {{> foot}}
        """

    static let appSettings = """
        {{> head}}
        <h1>{{displayName}} <span class="muted">({{memberName}})</span></h1>
        {{#saved}}<p class="ok" id="saved" role="status">Sent to {{memberName}}'s devices.</p>{{/saved}}
        <section id="app-settings" data-typed><h2>Category and points</h2>
        {{^configured}}<p class="muted">No device has a setting for this app yet; saving sends one to each.</p>{{/configured}}
        <form method="post" action="/app/members/{{memberID}}/apps/{{path}}" novalidate>{{> formError}}<input type="hidden" name="csrf" value="{{frame.csrf}}">
        <p><label for="category">Category</label><br><select id="category" name="category"{{#category.error}} aria-invalid="true" aria-describedby="error-category"{{/category.error}}>
        {{#categories}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/categories}}</select>
        {{#category.error}}<span class="field-error" id="error-category">{{category.error}}</span>{{/category.error}}</p>
        <p><label for="pointsPerMinute">Points a minute (0–1000; empty: none)</label><br><input type="number" inputmode="numeric" id="pointsPerMinute" name="pointsPerMinute" value="{{pointsPerMinute.value}}"{{#pointsPerMinute.error}} aria-invalid="true" aria-describedby="error-pointsPerMinute"{{/pointsPerMinute.error}}>
        {{#pointsPerMinute.error}}<span class="field-error" id="error-pointsPerMinute">{{pointsPerMinute.error}}</span>{{/pointsPerMinute.error}}</p>
        <p><button class="primary" type="submit" id="save-app">Save</button></p></form></section>
        <section id="app-devices"><h2>Blocked where</h2><table><tr><th>Device</th><th>Now</th><th></th></tr>
        {{#devices}}<tr data-device="{{id}}"><td>{{name}}</td><td><span class="state" data-state="{{state}}">{{state}}</span></td><td>
        <form class="inline" method="post" action="/app/members/{{memberID}}/apps"><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="app" value="{{logicalID}}"><input type="hidden" name="device" value="{{id}}"><input type="hidden" name="back" value="app">
        <button type="submit" name="action" value="block" id="block-{{id}}">Block here</button> <button type="submit" name="action" value="unblock" id="unblock-{{id}}">Unblock here</button></form></td></tr>{{/devices}}
        </table>{{^devices}}<p class="muted">{{memberName}} has no child device.</p>{{/devices}}
        <form method="post" action="/app/members/{{memberID}}/apps"><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="app" value="{{logicalID}}"><input type="hidden" name="back" value="app">
        <p><button type="submit" name="action" value="block" id="block-all">Block on every device</button> <button type="submit" name="action" value="unblock" id="unblock-all">Unblock on every device</button></p></form>
        <p><a href="/app/members/{{memberID}}#apps">Back to {{memberName}}</a></p></section>
        {{> foot}}
        """

    static let scheduleForm = """
        {{> head}}
        <h1>{{#isNew}}New schedule{{/isNew}}{{^isNew}}Edit schedule{{/isNew}} for {{memberName}}</h1>
        <section><form method="post" action="/app/members/{{memberID}}/schedules" novalidate>{{> formError}}
        <input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="scheduleID" value="{{scheduleID}}">
        <p><label for="name">Name</label><br><input id="name" name="name" value="{{name.value}}"{{#name.error}} aria-invalid="true" aria-describedby="error-name"{{/name.error}}>
        {{#name.error}}<span class="field-error" id="error-name">{{name.error}}</span>{{/name.error}}</p>
        <fieldset><legend>Days it starts on</legend>
        {{#days}}<label class="choice"><input type="checkbox" name="weekdays[]" value="{{number}}" id="day-{{number}}"{{#checked}} checked{{/checked}}> {{label}}</label> {{/days}}
        {{#weekdays.error}}<span class="field-error" id="error-weekdays">{{weekdays.error}}</span>{{/weekdays.error}}</fieldset>
        <fieldset><legend>Hours, in {{memberName}}'s time zone ({{timeZone}})</legend>
        <label for="intervalStart">From</label> <input type="time" id="intervalStart" name="intervalStart" value="{{intervalStart.value}}"{{#intervalStart.error}} aria-invalid="true" aria-describedby="error-intervalStart"{{/intervalStart.error}}>
        <label for="intervalEnd">to</label> <input type="time" id="intervalEnd" name="intervalEnd" value="{{intervalEnd.value}}"{{#intervalEnd.error}} aria-invalid="true" aria-describedby="error-intervalEnd"{{/intervalEnd.error}}>
        {{#intervalStart.error}}<span class="field-error" id="error-intervalStart">{{intervalStart.error}}</span>{{/intervalStart.error}}
        {{#intervalEnd.error}}<span class="field-error" id="error-intervalEnd">{{intervalEnd.error}}</span>{{/intervalEnd.error}}
        <br><span class="muted">An end before the start runs past midnight (21:00 to 07:00) and belongs to the day it starts on.</span></fieldset>
        <fieldset><legend>What it does</legend>
        {{#modes}}<label class="choice"><input type="radio" name="mode" value="{{value}}" id="mode-{{value}}"{{#selected}} checked{{/selected}}> {{label}}</label><br>{{/modes}}
        {{#mode.error}}<span class="field-error" id="error-mode">{{mode.error}}</span>{{/mode.error}}
        <p><label for="applications">Apps (their ids, separated by commas)</label><br><input id="applications" name="applications" value="{{applications.value}}"{{#applications.error}} aria-invalid="true" aria-describedby="error-applications"{{/applications.error}}>
        {{#applications.error}}<span class="field-error" id="error-applications">{{applications.error}}</span>{{/applications.error}}</p>
        <fieldset><legend>Categories</legend>{{#categoryChoices}}<label class="choice"><input type="checkbox" name="categories[]" value="{{value}}" id="category-{{value}}"{{#selected}} checked{{/selected}}> {{label}}</label> {{/categoryChoices}}
        {{#categories.error}}<span class="field-error" id="error-categories">{{categories.error}}</span>{{/categories.error}}</fieldset></fieldset>
        <p><label for="warningTimeMinutes">Minutes of warning before it starts</label><br><input type="number" inputmode="numeric" id="warningTimeMinutes" name="warningTimeMinutes" value="{{warningTimeMinutes.value}}"{{#warningTimeMinutes.error}} aria-invalid="true" aria-describedby="error-warningTimeMinutes"{{/warningTimeMinutes.error}}>
        {{#warningTimeMinutes.error}}<span class="field-error" id="error-warningTimeMinutes">{{warningTimeMinutes.error}}</span>{{/warningTimeMinutes.error}}</p>
        <p><label class="choice"><input type="checkbox" id="enabled" name="enabled"{{#enabled.checked}} checked{{/enabled.checked}}> On</label></p>
        <p><button class="primary" type="submit" id="save-schedule">Save</button> <a href="/app/members/{{memberID}}#schedules">Cancel</a></p>
        </form></section>
        {{> foot}}
        """

    static let error = """
        {{> head}}
        <section class="error"><h1>{{frame.title}}</h1><p id="reason">{{reason}}</p><p class="muted">{{code}}</p><p><a href="/app/">Back to the dashboard</a></p></section>
        {{> foot}}
        """
}
