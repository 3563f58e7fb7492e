/// The dashboard's one style sheet, served as `/app/app.css` (the CSP allows no inline style).
enum WebStyles {
    static let css = """
        :root { --ink: #1d2330; --muted: #5b6475; --line: #d9dee8; --bg: #f6f7fb; --card: #fff;
                --learning: #2f7d5b; --reward: #c7622a; --other: #6b6fc2; --ok: #2f7d5b; --warn: #c79a1f; --bad: #b3372f; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
        header { display: flex; justify-content: space-between; align-items: center; padding: 12px 24px; background: var(--card); border-bottom: 1px solid var(--line); }
        header a { color: inherit; text-decoration: none; font-weight: 600; }
        main { max-width: 960px; margin: 0 auto; padding: 24px; }
        section { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 16px 20px; margin-bottom: 20px; }
        h1 { font-size: 1.6rem; margin: 0 0 16px; } h2 { font-size: 1.15rem; margin: 0 0 12px; }
        table { width: 100%; border-collapse: collapse; } th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); }
        th { color: var(--muted); font-weight: 500; font-size: .9rem; }
        .code { font: 600 2.6rem/1.2 ui-monospace, monospace; letter-spacing: .12em; }
        .emoji { font-size: 2.4rem; letter-spacing: .2em; }
        .muted { color: var(--muted); }
        .light { display: inline-block; width: .8em; height: .8em; border-radius: 50%; margin-right: .4em; vertical-align: -.05em; }
        /* Red only for a device that went quiet; one that never reported is not known to be broken. */
        .light.healthy { background: var(--ok); } .light.degraded { background: var(--warn); } .light.stale { background: var(--bad); }
        .light.unknown { background: var(--muted); }
        .qr svg { width: 220px; height: 220px; }
        button { font: inherit; padding: 6px 14px; border-radius: 6px; border: 1px solid var(--line); background: var(--card); cursor: pointer; }
        button.primary { background: var(--ink); color: #fff; border-color: var(--ink); }
        form.inline { display: inline; }
        .error { border-color: var(--bad); }
        .ok { color: var(--ok); font-weight: 600; }
        .timeline .day { fill: var(--line); } .timeline .gap.heartbeat_stale { fill: var(--bad); } .timeline .gap.session_gap { fill: var(--warn); }
        .timeline text { font-size: 11px; fill: var(--muted); }
        input[type=number] { font: inherit; width: 7em; padding: 4px 6px; border: 1px solid var(--line); border-radius: 6px; }
        input:not([type]), input[type=time], select { font: inherit; padding: 4px 6px; border: 1px solid var(--muted); border-radius: 6px; max-width: 100%; }
        input[type=number] { border-color: var(--muted); }
        fieldset { border: 1px solid var(--line); border-radius: 8px; margin: 0 0 12px; padding: 8px 12px; min-width: 0; }
        legend { font-weight: 600; padding: 0 4px; }
        label.choice { display: inline-block; margin-right: .6em; }
        .weekdays .day { display: inline-block; white-space: nowrap; margin: 0 .8em .4em 0; }
        .weekdays .day label { display: inline-block; min-width: 6.5em; }
        .weekdays input[type=number] { width: 5em; }
        .field-error { display: block; color: var(--bad); font-weight: 600; }
        [aria-invalid=true] { border: 2px solid var(--bad); }
        a.button { display: inline-block; padding: 6px 14px; border-radius: 6px; border: 1px solid var(--ink); color: var(--ink); text-decoration: none; }
        .row { border-bottom: 1px solid var(--line); padding: 4px 0; } .row p { margin: 4px 0; }
        .over { color: var(--bad); font-weight: 600; }
        a { color: #2452b3; }
        :focus-visible { outline: 3px solid #2452b3; outline-offset: 2px; }
        /* A phone: tables scroll inside their section, never the page. */
        .scroll { overflow-x: auto; }
        @media (max-width: 640px) {
          header { padding: 8px 12px; } main { padding: 12px; } section { padding: 12px; }
          table { display: block; overflow-x: auto; white-space: nowrap; }
          h1 { font-size: 1.35rem; }
        }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        """
}

extension WebStyles {
    /// The charts' colours, by series; the series of one chart never share a colour.
    static let chartCSS = """
        svg.chart { width: 100%; height: auto; max-width: 560px; }
        svg.chart .axis { stroke: #9aa3b5; stroke-width: 1; }
        svg.chart text { font: 12px system-ui, sans-serif; fill: #1d2330; }
        svg.chart .label { fill: #5b6475; }
        .series-ios, .series-ipados { fill: #3a6fd8; } .series-macos { fill: #8a5cc7; } .series-watchos { fill: #2aa198; }
        .series-android { fill: #5c9a36; } .series-web { fill: #7a8194; } .series-other { fill: #b0b6c3; }
        .series-learning { fill: #2f7d5b; } .series-reward { fill: #c7622a; } .series-neutral { fill: #3a6fd8; }
        .key span { display: inline-block; width: .8em; height: .8em; border-radius: 2px; margin: 0 .3em 0 .8em; vertical-align: -.05em; }
        .key .series-ios, .key .series-ipados { background: #3a6fd8; } .key .series-macos { background: #8a5cc7; } .key .series-watchos { background: #2aa198; }
        .key .series-android { background: #5c9a36; } .key .series-web { background: #7a8194; } .key .series-other { background: #b0b6c3; }
        .split { font-size: 1.2rem; font-weight: 600; }
        """
}
