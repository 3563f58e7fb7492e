/// The dashboard's Mustache templates. `{{x}}` escapes HTML; the one `{{{…}}}` is the QR code's
/// SVG, which the server draws itself. No inline script or style anywhere (the CSP forbids both).
enum WebTemplates {
    static let all: [String: String] = [
        "head": head, "foot": foot, "signIn": signIn, "signInCode": signInCode, "signInEmoji": signInEmoji, "family": family, "member": member, "privacy": privacy, "device": device, "error": error,
        "budgetForm": budgetForm, "appSettings": appSettings, "memberSettings": memberSettings, "familySettings": familySettings, "scheduleForm": scheduleForm, "formError": formError,
    ]

    static let head = """
        {{#frame}}<!doctype html>
        <html lang="{{lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        {{#refreshSeconds}}<meta http-equiv="refresh" content="{{refreshSeconds}}">{{/refreshSeconds}}
        <title>{{title}} · FamilySync</title><link rel="stylesheet" href="/app/app.css">{{#liveToken}}<script src="/app/live.js" defer></script>{{/liveToken}}</head>
        <body{{#liveToken}} data-live="{{liveToken}}"{{/liveToken}}><header><a href="/app/">FamilySync</a>
        {{#switchable}}<form class="inline" method="post" action="/app/language"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="back" value="{{path}}"><button type="submit" name="lang" value="{{otherLanguage}}" lang="{{otherLanguage}}" id="language">{{otherLanguageName}}</button></form>{{/switchable}}
        {{#signedIn}}<form class="inline" method="post" action="/app/sign-out"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" id="sign-out">{{t.signOut}}</button></form>{{/signedIn}}
        </header><main>{{#liveToken}}<p id="live-status" class="visually-hidden" role="status" data-updated="{{t.liveUpdated}}"></p>{{/liveToken}}{{/frame}}
        """

    static let foot = "</main></body></html>\n"

    static let signIn = """
        {{> head}}
        <section><h1>{{frame.t.signInHeading}}</h1>
        <p>{{frame.t.signInIntro}}</p>
        {{#message}}<p class="error" id="message">{{message}}</p>{{/message}}
        <form method="post" action="/app/sign-in"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button class="primary" type="submit" id="start">{{frame.t.signInStart}}</button></form>
        </section>
        {{> foot}}
        """

    static let signInCode = """
        {{> head}}
        <section><h1>{{frame.t.signInCodeHeading}}</h1>
        <p class="code" id="code">{{code}}</p>
        {{#qrSVG}}<div class="qr" role="img" aria-label="{{frame.t.signInCodeQR}} {{code}}">{{{qrSVG}}}</div>{{/qrSVG}}
        <p>{{frame.t.signInCodeScan}} <code>familysync pair sign-in {{code}}</code>.</p>
        <p class="muted">{{frame.t.signInCodeValid}} {{expiresAt}}. {{frame.t.pageUpdates}}</p>
        </section>
        {{> foot}}
        """

    static let signInEmoji = """
        {{> head}}
        <section><h1>{{frame.t.signInEmojiHeading}}</h1>
        <p class="emoji" id="emoji" aria-label="{{frame.t.signInEmojiLabel}}">{{emoji}}</p>
        <p>{{frame.t.signInEmojiCompare}} (<code>familysync pair confirm {{pairingID}}</code>).</p>
        <p class="muted">{{frame.t.signInEmojiNext}}</p>
        </section>
        {{> foot}}
        """

    static let family = """
        {{> head}}
        <h1>{{frame.t.familyHeading}}</h1>
        {{#askName}}<section id="ask-name" data-typed><h2>{{frame.t.askNameHeading}}</h2>
        <p>{{frame.t.askNameWhy}} {{current}}</p>
        <form method="post" action="/app/members/{{memberID}}/name"><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="back" value="family">
        <label for="your-name">{{frame.t.askNameLabel}}</label> <input id="your-name" name="name" autocomplete="given-name"> <button class="primary" type="submit" id="save-your-name">{{frame.t.save}}</button>
        <button type="submit" name="keep" value="1" id="keep-name">{{frame.t.askNameKeep}}</button></form></section>{{/askName}}
        {{#hasPairings}}<section id="pairings"><h2>{{frame.t.pairingsHeading}}</h2><table>
        <tr><th>{{frame.t.colDevice}}</th><th>{{frame.t.colEmoji}}</th><th></th></tr>
        {{#pairings}}<tr><td>{{deviceName}}</td><td class="emoji">{{emoji}}</td><td><form class="inline" method="post" action="/app/pairings/{{id}}/confirm"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit" id="confirm-{{id}}">{{frame.t.confirm}}</button></form></td></tr>{{/pairings}}
        </table></section>{{/hasPairings}}
        <section id="members"><h2>{{frame.t.membersHeading}}</h2><table>
        <tr><th>{{frame.t.colName}}</th><th>{{frame.t.colRole}}</th><th>{{frame.t.colDevices}}</th></tr>
        {{#members}}<tr><td><a href="/app/members/{{id}}">{{name}}</a></td><td>{{roleLabel}}</td><td>{{deviceCount}}</td></tr>{{/members}}
        </table><p><a href="/app/family" id="family-settings-link">{{frame.t.familySettingsLink}}</a> · <a href="/app/privacy" id="privacy-link">{{frame.t.privacyLink}}</a></p></section>
        <section id="devices"><h2>{{frame.t.devicesHeading}}</h2><table>
        <tr><th>{{frame.t.colDevice}}</th><th>{{frame.t.colMember}}</th><th>{{frame.t.colPlatform}}</th><th>{{frame.t.colLastSync}}</th><th>{{frame.t.colTracking}}</th><th>{{frame.t.colPending}}</th></tr>
        {{#devices}}<tr data-device="{{id}}"><td>{{#health}}<a href="/app/devices/{{id}}">{{name}}</a>{{/health}}{{^health}}{{name}}{{/health}}{{#isThis}} <span class="muted">({{frame.t.thisBrowser}})</span>{{/isThis}}</td><td>{{memberName}}</td><td>{{platform}}</td><td>{{lastSync}}</td>
        <td>{{#health}}<span class="light {{health}}" aria-hidden="true"></span>{{healthLabel}}{{/health}}{{^health}}<span class="muted">{{frame.t.notTracked}}</span>{{/health}}</td><td>{{pendingCommands}}</td></tr>{{/devices}}
        </table></section>
        {{> foot}}
        """

    static let member = """
        {{> head}}
        <h1 id="member-name">{{name}}</h1>
        <p><a href="/app/members/{{memberID}}/settings" id="member-settings">{{frame.t.memberSettingsLink}}</a></p>
        <p class="split" id="platform-split">{{frame.t.today}}: {{platformSplit}}</p>
        <section id="week"><h2>{{frame.t.weekHeading}}</h2>
        {{{weekChart}}}
        <p class="key" aria-hidden="true">{{#platforms}}<span class="series-{{series}}"></span>{{label}}{{/platforms}}</p>
        <table id="week-table"><tr><th>{{frame.t.colDay}}</th>{{#platforms}}<th>{{label}}</th>{{/platforms}}<th>{{frame.t.colTotal}}</th></tr>
        {{#days}}<tr data-date="{{date}}"><td>{{label}}</td>{{#cells}}<td>{{.}}</td>{{/cells}}<td class="total" data-seconds="{{totalSeconds}}">{{total}}</td></tr>{{/days}}
        </table></section>
        <section id="today"><h2>{{frame.t.todayHeading}}</h2>
        {{{categoryChart}}}
        <table id="category-table"><tr><th>{{frame.t.colCategory}}</th><th>{{frame.t.colTime}}</th><th>{{frame.t.colPoints}}</th></tr>
        {{#categories}}<tr data-category="{{category}}"><td>{{name}}</td><td data-seconds="{{seconds}}">{{time}}</td><td>{{points}}</td></tr>{{/categories}}
        </table></section>
        <section id="apps"><h2>{{frame.t.appsHeading}}</h2><table><tr><th>{{frame.t.colApp}}</th><th>{{frame.t.colCategory}}</th><th>{{frame.t.colTime}}</th><th>{{frame.t.colNow}}</th><th>{{frame.t.colEveryDevice}}</th></tr>
        {{#apps}}<tr data-app="{{logicalID}}"><td><a href="/app/members/{{memberID}}/apps/{{path}}" id="app-{{logicalID}}">{{displayName}}</a></td><td>{{category}}</td><td>{{time}}</td>
        <td>{{#states}}<span class="state" data-state="{{state}}">{{device}}: {{label}}</span> {{/states}}</td><td>
        <form class="inline" method="post" action="/app/members/{{memberID}}/apps"><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="app" value="{{logicalID}}">
        <button type="submit" name="action" value="block" id="block-{{logicalID}}">{{frame.t.block}}</button> <button type="submit" name="action" value="unblock" id="unblock-{{logicalID}}">{{frame.t.unblock}}</button></form></td></tr>{{/apps}}
        </table>{{^apps}}<p class="muted">{{frame.t.noUsage}}</p>{{/apps}}</section>
        <section id="budgets"><h2>{{frame.t.budgetsHeading}}</h2>
        {{#budgets}}<div class="row" data-budget="{{budgetID}}"><p><strong>{{category}}</strong>: {{allowance}}.
        {{#remaining}}{{today}}{{#over}} <span class="over">{{frame.t.overBudget}}</span>{{/over}}{{/remaining}}{{^enabled}} <span class="muted">({{frame.t.off}})</span>{{/enabled}}</p>
        <p><a href="/app/members/{{memberID}}/budgets/{{budgetID}}" id="edit-budget-{{budgetID}}">{{frame.t.edit}}</a>
        <form class="inline" method="post" action="/app/members/{{memberID}}/budgets/{{budgetID}}/delete"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit" id="delete-budget-{{budgetID}}">{{frame.t.delete}}</button></form></p></div>{{/budgets}}
        {{^budgets}}<p class="muted">{{frame.t.noBudget}}</p>{{/budgets}}
        <p><a class="button" href="/app/members/{{memberID}}/budgets/new" id="new-budget">{{frame.t.addBudget}}</a></p></section>
        <section id="alerts"><h2>{{frame.t.alertsHeading}}</h2>
        {{#alerts}}<div data-alert="{{id}}"><p>{{message}} <span class="muted">{{when}}</span></p>
        <form class="inline" method="post" action="/app/alerts/{{id}}/dismiss"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit" id="dismiss-{{id}}">{{frame.t.dismiss}}</button></form></div>{{/alerts}}
        {{^alerts}}<p class="muted" id="no-alerts">{{frame.t.noAlerts}}</p>{{/alerts}}</section>
        <section id="schedules"><h2>{{frame.t.schedulesHeading}} <span class="muted">({{timeZone}})</span></h2>
        {{#schedules}}<div class="row" data-schedule="{{scheduleID}}"><p><strong>{{name}}</strong> {{days}}, {{start}}–{{end}}: {{what}}{{^enabled}} <span class="muted">({{frame.t.off}})</span>{{/enabled}}</p>
        <p><a href="/app/members/{{memberID}}/schedules/{{scheduleID}}" id="edit-schedule-{{scheduleID}}">{{frame.t.edit}}</a>
        <form class="inline" method="post" action="/app/members/{{memberID}}/schedules/{{scheduleID}}/delete"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit" id="delete-schedule-{{scheduleID}}">{{frame.t.delete}}</button></form></p></div>{{/schedules}}
        {{^schedules}}<p class="muted">{{frame.t.noSchedule}}</p>{{/schedules}}
        <p><a class="button" href="/app/members/{{memberID}}/schedules/new" id="new-schedule">{{frame.t.addSchedule}}</a></p></section>
        <section id="member-devices"><h2>{{frame.t.devicesHeading}}</h2><table><tr><th>{{frame.t.colDevice}}</th><th>{{frame.t.colPlatform}}</th><th>{{frame.t.colLastSync}}</th><th>{{frame.t.colShielded}}</th><th>{{frame.t.colNotCarriedOut}}</th><th></th></tr>
        {{#devices}}<tr data-device="{{id}}"><td>{{name}}</td><td>{{platform}}</td><td>{{lastSync}}</td><td>{{shielded}}</td>
        <td>{{#pending}}<span class="pending">{{.}}</span> {{/pending}}{{^pending}}<span class="muted">{{frame.t.nothingPending}}</span>{{/pending}}</td><td>
        <form class="inline" method="post" action="/app/devices/{{id}}/sync"><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="member" value="{{memberID}}"><button type="submit" id="sync-{{id}}">{{frame.t.requestSync}}</button></form></td></tr>{{/devices}}
        </table></section>
        {{> foot}}
        """

    static let device = """
        {{> head}}
        <h1 id="device-name">{{name}}</h1>
        <p>{{platform}} · {{memberName}} · {{timeZone}}</p>
        <section id="health"><h2>{{frame.t.healthHeading}} ({{date}})</h2>
        <p id="status"><span class="light {{status}}" aria-hidden="true"></span><strong>{{statusLabel}}</strong>, {{frame.t.lastHeartbeat}} {{lastHeartbeat}}</p>
        <table><tr><th>{{frame.t.colMemory}}</th><th>{{frame.t.colMissed}}</th><th>{{frame.t.colResets}}</th><th>{{frame.t.colErrorsToday}}</th><th>{{frame.t.colGapMinutes}}</th></tr>
        <tr><td>{{memory}}</td><td>{{missedNotifications}}</td><td>{{sequenceResets}}</td><td>{{errorsToday}}</td><td>{{gapMinutes}}</td></tr></table>
        <p><a href="/app/devices/{{deviceID}}/health.txt" id="health-export" download>{{frame.t.healthExport}}</a></p></section>
        <section id="gaps-today"><h2>{{frame.t.gapsHeading}}</h2>
        {{{timeline}}}
        <table id="gap-table"><tr><th>{{frame.t.colFrom}}</th><th>{{frame.t.colTo}}</th><th>{{frame.t.colMinutes}}</th><th>{{frame.t.colWhat}}</th></tr>
        {{#gaps}}<tr data-method="{{method}}"><td>{{from}}</td><td>{{to}}</td><td>{{minutes}}</td><td>{{kind}}</td></tr>{{/gaps}}
        </table>{{^gaps}}<p class="muted" id="no-gaps">{{frame.t.noGaps}}</p>{{/gaps}}</section>
        <section id="errors"><h2>{{frame.t.errorsHeading}}</h2><table>
        <tr><th>{{frame.t.colWhen}}</th><th>{{frame.t.colEvent}}</th><th>{{frame.t.colAction}}</th><th>{{frame.t.colOutcome}}</th><th>{{frame.t.colSaid}}</th></tr>
        {{#errors}}<tr><td>{{when}}</td><td>{{event}}</td><td>{{action}}</td><td>{{outcome}}</td><td>{{description}}</td></tr>{{/errors}}
        </table>{{^errors}}<p class="muted" id="no-errors">{{frame.t.noErrors}}</p>{{/errors}}</section>
        {{> foot}}
        """

    static let privacy = """
        {{> head}}
        <h1>{{frame.t.privacyHeading}}</h1>
        {{#saved}}<p class="ok" id="saved" role="status">{{frame.t.retentionSaved}}</p>{{/saved}}
        <section id="retention" data-typed><h2>{{frame.t.retentionHeading}}</h2>
        <form method="post" action="/app/privacy/retention" novalidate>{{> formError}}<input type="hidden" name="csrf" value="{{frame.csrf}}">
        <table><tr><th>{{frame.t.colWhat}}</th><th>{{frame.t.colDaysKept}}</th><th>{{frame.t.colSetBy}}</th></tr>
        {{#retention}}<tr data-kind="{{kind}}"><td><label for="days-{{kind}}">{{label}}</label></td>
        <td><input type="number" min="1" max="{{maximumDays}}" id="days-{{kind}}" name="{{kind}}" value="{{familyDays}}" placeholder="{{maximumDays}}"{{#error}} aria-invalid="true" aria-describedby="error-{{kind}}"{{/error}}>
        {{#error}}<span class="field-error" id="error-{{kind}}">{{error}}</span>{{/error}}</td>
        <td>{{#familySet}}{{frame.t.setByYou}}{{/familySet}}{{^familySet}}{{frame.t.setByServer}}{{/familySet}}</td></tr>{{/retention}}
        </table><p class="muted">{{frame.t.retentionEmpty}} {{maximumDays}}</p>
        <button class="primary" type="submit" id="save-retention">{{frame.t.save}}</button></form></section>
        <section id="export"><h2>{{frame.t.downloadHeading}}</h2>
        <p><a href="/app/privacy/export" id="export-family" download>{{frame.t.exportFamily}}</a> <span class="muted">({{frame.t.exportFormat}})</span></p>
        {{#members}}<p><a href="/app/privacy/export?member={{id}}" data-member="{{id}}" download>{{frame.t.exportMember}} {{name}}</a></p>{{/members}}
        </section>
        <section id="audit"><h2>{{frame.t.auditHeading}}</h2><table>
        <tr><th>{{frame.t.colWhen}}</th><th>{{frame.t.colWho}}</th><th>{{frame.t.colAddress}}</th><th>{{frame.t.colWhat}}</th><th>{{frame.t.colOf}}</th><th>{{frame.t.colFor}}</th></tr>
        {{#events}}<tr data-event="{{id}}"><td>{{when}}</td><td>{{who}}</td><td>{{address}}</td><td>{{action}}</td><td>{{subject}}</td><td>{{concerns}}</td></tr>{{/events}}
        </table>{{^events}}<p class="muted" id="no-events">{{frame.t.noEvents}}</p>{{/events}}</section>
        {{> foot}}
        """

    /// A refusal that names no field of the form, above it.
    static let formError = """
        {{#error}}<p class="error" id="form-error" role="alert">{{error}}</p>{{/error}}
        """

    static let budgetForm = """
        {{> head}}
        <h1>{{frame.title}}</h1>
        <section><form method="post" action="/app/members/{{memberID}}/budgets" novalidate>{{> formError}}
        <input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="budgetID" value="{{budgetID}}">
        <p><label for="category">{{frame.t.budgetCounts}}</label><br><select id="category" name="category"{{#category.error}} aria-invalid="true" aria-describedby="error-category"{{/category.error}}>
        {{#categories}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/categories}}</select>
        {{#category.error}}<span class="field-error" id="error-category">{{category.error}}</span>{{/category.error}}</p>
        <fieldset><legend>{{frame.t.allowance}}</legend>
        {{#periods}}<label class="choice"><input type="radio" name="period" value="{{value}}" id="period-{{value}}"{{#selected}} checked{{/selected}}> {{label}}</label> {{/periods}}
        {{#period.error}}<span class="field-error" id="error-period">{{period.error}}</span>{{/period.error}}
        <p><label for="dailyMinutes">{{frame.t.minutesADay}}</label><br><input type="number" inputmode="numeric" id="dailyMinutes" name="dailyMinutes" value="{{dailyMinutes.value}}"{{#dailyMinutes.error}} aria-invalid="true" aria-describedby="error-dailyMinutes"{{/dailyMinutes.error}}>
        {{#dailyMinutes.error}}<span class="field-error" id="error-dailyMinutes">{{dailyMinutes.error}}</span>{{/dailyMinutes.error}}</p>
        <fieldset class="weekdays"><legend>{{frame.t.otherDays}}</legend>
        {{#weekdays}}<span class="day"><label for="minutes-{{key}}">{{label}}</label> <input type="number" inputmode="numeric" id="minutes-{{key}}" name="{{key}}" value="{{field.value}}"></span> {{/weekdays}}
        {{#weekdayMinutes.error}}<span class="field-error" id="error-weekdayMinutes">{{weekdayMinutes.error}}</span>{{/weekdayMinutes.error}}</fieldset>
        <p><label for="monthlyHours">{{frame.t.hoursAMonth}}</label><br><input type="number" inputmode="numeric" id="monthlyHours" name="monthlyHours" value="{{monthlyHours.value}}" aria-describedby="monthly-formula"{{#monthlyHours.error}} aria-invalid="true"{{/monthlyHours.error}}>
        {{#monthlyHours.error}}<span class="field-error" id="error-monthlyHours">{{monthlyHours.error}}</span>{{/monthlyHours.error}}
        <br><span class="muted" id="monthly-formula">{{frame.t.monthlySpread}} {{monthlyFormula}}</span></p></fieldset>
        <p><label for="alertAtPercent">{{frame.t.alertAt}}</label><br><input id="alertAtPercent" name="alertAtPercent" value="{{alertAtPercent.value}}"{{#alertAtPercent.error}} aria-invalid="true" aria-describedby="error-alertAtPercent"{{/alertAtPercent.error}}>
        {{#alertAtPercent.error}}<span class="field-error" id="error-alertAtPercent">{{alertAtPercent.error}}</span>{{/alertAtPercent.error}}</p>
        <p><label class="choice"><input type="checkbox" id="isExcluded" name="isExcluded"{{#isExcluded.checked}} checked{{/isExcluded.checked}}> {{frame.t.excluded}}</label>
        {{#isExcluded.error}}<span class="field-error" id="error-isExcluded">{{isExcluded.error}}</span>{{/isExcluded.error}}</p>
        <p><label class="choice"><input type="checkbox" id="enabled" name="enabled"{{#enabled.checked}} checked{{/enabled.checked}}> {{frame.t.on}}</label>
        {{#enabled.error}}<span class="field-error" id="error-enabled">{{enabled.error}}</span>{{/enabled.error}}</p>
        <p><button class="primary" type="submit" id="save-budget">{{frame.t.save}}</button> <a href="/app/members/{{memberID}}#budgets">{{frame.t.cancel}}</a></p>
        </form></section>
        {{> foot}}
        """

    static let familySettings = """
        {{> head}}
        <h1>{{frame.t.familySettingsHeading}}</h1>
        {{#saved}}<p class="ok" id="saved" role="status">{{frame.t.saved}}</p>{{/saved}}
        <section id="categories"><h2>{{frame.t.categoriesHeading}}</h2><table><tr><th>{{frame.t.colCategory}}</th><th>{{frame.t.colId}}</th><th>{{frame.t.colCountsAs}}</th></tr>
        {{#categories}}<tr data-category="{{id}}"><td>{{name}}</td><td><code>{{id}}</code></td><td>{{kindLabel}}{{#own}} <span class="muted">({{frame.t.yourOwn}})</span>{{/own}}</td></tr>{{/categories}}
        </table>
        <h3>{{frame.t.addCategory}}</h3>
        <form method="post" action="/app/family/categories" novalidate>{{> formError}}<input type="hidden" name="csrf" value="{{frame.csrf}}">
        <p><label for="category-id">{{frame.t.categoryIdLabel}}</label><br><input id="category-id" name="id" value="{{id.value}}"{{#id.error}} aria-invalid="true" aria-describedby="error-id"{{/id.error}}>
        {{#id.error}}<span class="field-error" id="error-id">{{id.error}}</span>{{/id.error}}</p>
        <p><label for="displayName">{{frame.t.colName}}</label><br><input id="displayName" name="displayName" value="{{displayName.value}}"{{#displayName.error}} aria-invalid="true" aria-describedby="error-displayName"{{/displayName.error}}>
        {{#displayName.error}}<span class="field-error" id="error-displayName">{{displayName.error}}</span>{{/displayName.error}}</p>
        <p><label for="kind">{{frame.t.colCountsAs}}</label><br><select id="kind" name="kind"{{#kind.error}} aria-invalid="true" aria-describedby="error-kind"{{/kind.error}}>{{#kinds}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/kinds}}</select>
        {{#kind.error}}<span class="field-error" id="error-kind">{{kind.error}}</span>{{/kind.error}}</p>
        <p><label for="defaultDailyMinutes">{{frame.t.defaultMinutes}}</label><br><input type="number" inputmode="numeric" id="defaultDailyMinutes" name="defaultDailyMinutes" value="{{defaultDailyMinutes.value}}"{{#defaultDailyMinutes.error}} aria-invalid="true" aria-describedby="error-defaultDailyMinutes"{{/defaultDailyMinutes.error}}>
        {{#defaultDailyMinutes.error}}<span class="field-error" id="error-defaultDailyMinutes">{{defaultDailyMinutes.error}}</span>{{/defaultDailyMinutes.error}}</p>
        <p><button class="primary" type="submit" id="save-category">{{frame.t.save}}</button></p></form></section>
        <section id="recovery"><h2>{{frame.t.recoveryHeading}}</h2>
        {{#recoveryCode}}<p class="ok" role="status">{{frame.t.recoveryNew}}</p><p class="code" id="recovery-code">{{recoveryCode}}</p>{{/recoveryCode}}
        <p>{{frame.t.recoveryWhat}} (<code>familysync family recover</code>).</p>
        <form method="post" action="/app/family/recovery-code"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit" id="new-recovery-code">{{frame.t.recoveryIssue}}</button></form></section>
        {{> foot}}
        """

    static let memberSettings = """
        {{> head}}
        <h1>{{frame.title}}</h1>
        {{#done}}<p class="ok" id="done" role="status">{{done}}</p>{{/done}}{{> formError}}
        <section id="name-section"><h2>{{frame.t.colName}}</h2>
        <form method="post" action="/app/members/{{memberID}}/name" novalidate><input type="hidden" name="csrf" value="{{frame.csrf}}">
        <p><label for="name">{{frame.t.colName}}</label><br><input id="name" name="name" value="{{name.value}}" autocomplete="off"{{#name.error}} aria-invalid="true" aria-describedby="error-name"{{/name.error}}>
        {{#name.error}}<span class="field-error" id="error-name">{{name.error}}</span>{{/name.error}}</p>
        <p><button type="submit" id="save-name">{{frame.t.rename}}</button></p></form></section>
        <section id="pin-section"><h2>{{frame.t.pinHeading}}</h2>
        <p>{{#hasPIN}}{{frame.t.pinSet}}{{/hasPIN}}{{^hasPIN}}{{frame.t.pinNone}}{{/hasPIN}}</p>
        <form method="post" action="/app/members/{{memberID}}/pin" novalidate><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="action" value="set">
        <p><label for="pin">{{#hasPIN}}{{frame.t.pinNew}}{{/hasPIN}}{{^hasPIN}}{{frame.t.pinFirst}}{{/hasPIN}}</label><br><input type="password" inputmode="numeric" autocomplete="new-password" id="pin" name="pin"{{#pin.error}} aria-invalid="true" aria-describedby="error-pin"{{/pin.error}}>
        {{#pin.error}}<span class="field-error" id="error-pin">{{pin.error}}</span>{{/pin.error}}</p>
        <p><button type="submit" id="set-pin">{{#hasPIN}}{{frame.t.pinChange}}{{/hasPIN}}{{^hasPIN}}{{frame.t.pinSetButton}}{{/hasPIN}}</button></p></form>
        {{#hasPIN}}<form method="post" action="/app/members/{{memberID}}/pin"><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="action" value="clear"><button type="submit" id="clear-pin">{{frame.t.pinClear}}</button></form>{{/hasPIN}}
        </section>
        <section id="devices-section"><h2>{{frame.t.devicesHeading}}</h2><table><tr><th>{{frame.t.colDevice}}</th><th>{{frame.t.colPlatform}}</th><th>{{frame.t.colLastSync}}</th><th>{{frame.t.colMoveTo}}</th><th></th></tr>
        {{#devices}}<tr data-device="{{id}}"><td>{{name}}{{#isThis}} <span class="muted">({{frame.t.thisBrowser}})</span>{{/isThis}}</td><td>{{platform}}</td><td>{{lastSync}}</td>
        <td>{{#canMove}}<form class="inline" method="post" action="/app/devices/{{id}}/move"><input type="hidden" name="csrf" value="{{frame.csrf}}"><label class="visually-hidden" for="move-{{id}}">{{name}}: {{frame.t.colMoveTo}}</label>
        <select id="move-{{id}}" name="member">{{#targets}}<option value="{{value}}">{{label}}</option>{{/targets}}</select> <button type="submit" id="move-button-{{id}}">{{frame.t.move}}</button></form>{{/canMove}}{{^canMove}}<span class="muted">{{frame.t.noOtherMember}}</span>{{/canMove}}</td>
        <td>{{^isThis}}<form class="inline" method="post" action="/app/devices/{{id}}/revoke"><input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit" id="revoke-{{id}}">{{frame.t.revoke}}</button></form>{{/isThis}}</td></tr>{{/devices}}
        </table>{{^devices}}<p class="muted">{{frame.t.noDevice}}</p>{{/devices}}</section>
        <p><a href="/app/members/{{memberID}}">{{frame.t.back}} {{memberName}}</a></p>
        {{> foot}}
        """

    static let appSettings = """
        {{> head}}
        <h1>{{displayName}} <span class="muted">({{memberName}})</span></h1>
        {{#saved}}<p class="ok" id="saved" role="status">{{frame.t.appSent}}</p>{{/saved}}
        <section id="app-settings" data-typed><h2>{{frame.t.appHeading}}</h2>
        {{^configured}}<p class="muted">{{frame.t.appUnconfigured}}</p>{{/configured}}
        <form method="post" action="/app/members/{{memberID}}/apps/{{path}}" novalidate>{{> formError}}<input type="hidden" name="csrf" value="{{frame.csrf}}">
        <p><label for="category">{{frame.t.colCategory}}</label><br><select id="category" name="category"{{#category.error}} aria-invalid="true" aria-describedby="error-category"{{/category.error}}>
        {{#categories}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/categories}}</select>
        {{#category.error}}<span class="field-error" id="error-category">{{category.error}}</span>{{/category.error}}</p>
        <p><label for="pointsPerMinute">{{frame.t.pointsLabel}}</label><br><input type="number" inputmode="numeric" id="pointsPerMinute" name="pointsPerMinute" value="{{pointsPerMinute.value}}"{{#pointsPerMinute.error}} aria-invalid="true" aria-describedby="error-pointsPerMinute"{{/pointsPerMinute.error}}>
        {{#pointsPerMinute.error}}<span class="field-error" id="error-pointsPerMinute">{{pointsPerMinute.error}}</span>{{/pointsPerMinute.error}}</p>
        <p><button class="primary" type="submit" id="save-app">{{frame.t.save}}</button></p></form></section>
        <section id="app-devices"><h2>{{frame.t.blockedWhere}}</h2><table><tr><th>{{frame.t.colDevice}}</th><th>{{frame.t.colNow}}</th><th></th></tr>
        {{#devices}}<tr data-device="{{id}}"><td>{{name}}</td><td><span class="state" data-state="{{state}}">{{label}}</span></td><td>
        <form class="inline" method="post" action="/app/members/{{memberID}}/apps"><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="app" value="{{logicalID}}"><input type="hidden" name="device" value="{{id}}"><input type="hidden" name="back" value="app">
        <button type="submit" name="action" value="block" id="block-{{id}}">{{frame.t.blockHere}}</button> <button type="submit" name="action" value="unblock" id="unblock-{{id}}">{{frame.t.unblockHere}}</button></form></td></tr>{{/devices}}
        </table>{{^devices}}<p class="muted">{{frame.t.noChildDevice}}</p>{{/devices}}
        <form method="post" action="/app/members/{{memberID}}/apps"><input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="app" value="{{logicalID}}"><input type="hidden" name="back" value="app">
        <p><button type="submit" name="action" value="block" id="block-all">{{frame.t.blockAll}}</button> <button type="submit" name="action" value="unblock" id="unblock-all">{{frame.t.unblockAll}}</button></p></form>
        <p><a href="/app/members/{{memberID}}#apps">{{frame.t.back}} {{memberName}}</a></p></section>
        {{> foot}}
        """

    static let scheduleForm = """
        {{> head}}
        <h1>{{frame.title}}</h1>
        <section><form method="post" action="/app/members/{{memberID}}/schedules" novalidate>{{> formError}}
        <input type="hidden" name="csrf" value="{{frame.csrf}}"><input type="hidden" name="scheduleID" value="{{scheduleID}}">
        <p><label for="name">{{frame.t.colName}}</label><br><input id="name" name="name" value="{{name.value}}"{{#name.error}} aria-invalid="true" aria-describedby="error-name"{{/name.error}}>
        {{#name.error}}<span class="field-error" id="error-name">{{name.error}}</span>{{/name.error}}</p>
        <fieldset><legend>{{frame.t.daysItStarts}}</legend>
        {{#days}}<label class="choice"><input type="checkbox" name="weekdays[]" value="{{number}}" id="day-{{number}}"{{#checked}} checked{{/checked}}> {{label}}</label> {{/days}}
        {{#weekdays.error}}<span class="field-error" id="error-weekdays">{{weekdays.error}}</span>{{/weekdays.error}}</fieldset>
        <fieldset><legend>{{frame.t.hoursIn}} ({{timeZone}})</legend>
        <label for="intervalStart">{{frame.t.colFrom}}</label> <input type="time" id="intervalStart" name="intervalStart" value="{{intervalStart.value}}"{{#intervalStart.error}} aria-invalid="true" aria-describedby="error-intervalStart"{{/intervalStart.error}}>
        <label for="intervalEnd">{{frame.t.colTo}}</label> <input type="time" id="intervalEnd" name="intervalEnd" value="{{intervalEnd.value}}"{{#intervalEnd.error}} aria-invalid="true" aria-describedby="error-intervalEnd"{{/intervalEnd.error}}>
        {{#intervalStart.error}}<span class="field-error" id="error-intervalStart">{{intervalStart.error}}</span>{{/intervalStart.error}}
        {{#intervalEnd.error}}<span class="field-error" id="error-intervalEnd">{{intervalEnd.error}}</span>{{/intervalEnd.error}}
        <br><span class="muted">{{frame.t.pastMidnight}}</span></fieldset>
        <fieldset><legend>{{frame.t.whatItDoes}}</legend>
        {{#modes}}<label class="choice"><input type="radio" name="mode" value="{{value}}" id="mode-{{value}}"{{#selected}} checked{{/selected}}> {{label}}</label><br>{{/modes}}
        {{#mode.error}}<span class="field-error" id="error-mode">{{mode.error}}</span>{{/mode.error}}
        <p><label for="applications">{{frame.t.appsLabel}}</label><br><input id="applications" name="applications" value="{{applications.value}}"{{#applications.error}} aria-invalid="true" aria-describedby="error-applications"{{/applications.error}}>
        {{#applications.error}}<span class="field-error" id="error-applications">{{applications.error}}</span>{{/applications.error}}</p>
        <fieldset><legend>{{frame.t.categoriesHeading}}</legend>{{#categoryChoices}}<label class="choice"><input type="checkbox" name="categories[]" value="{{value}}" id="category-{{value}}"{{#selected}} checked{{/selected}}> {{label}}</label> {{/categoryChoices}}
        {{#categories.error}}<span class="field-error" id="error-categories">{{categories.error}}</span>{{/categories.error}}</fieldset></fieldset>
        <p><label for="warningTimeMinutes">{{frame.t.warningLabel}}</label><br><input type="number" inputmode="numeric" id="warningTimeMinutes" name="warningTimeMinutes" value="{{warningTimeMinutes.value}}"{{#warningTimeMinutes.error}} aria-invalid="true" aria-describedby="error-warningTimeMinutes"{{/warningTimeMinutes.error}}>
        {{#warningTimeMinutes.error}}<span class="field-error" id="error-warningTimeMinutes">{{warningTimeMinutes.error}}</span>{{/warningTimeMinutes.error}}</p>
        <p><label class="choice"><input type="checkbox" id="enabled" name="enabled"{{#enabled.checked}} checked{{/enabled.checked}}> {{frame.t.on}}</label>
        {{#enabled.error}}<span class="field-error" id="error-enabled">{{enabled.error}}</span>{{/enabled.error}}</p>
        <p><button class="primary" type="submit" id="save-schedule">{{frame.t.save}}</button> <a href="/app/members/{{memberID}}#schedules">{{frame.t.cancel}}</a></p>
        </form></section>
        {{> foot}}
        """

    static let error = """
        {{> head}}
        <section class="error"><h1>{{frame.title}}</h1><p id="reason">{{reason}}</p><p class="muted">{{code}}</p><p><a href="/app/">{{frame.t.backToDashboard}}</a></p></section>
        {{> foot}}
        """
}
