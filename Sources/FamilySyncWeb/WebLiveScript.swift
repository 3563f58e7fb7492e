/// `/app/live.js`: the dashboard's one script, the project's own (the CSP allows scripts from
/// `/app` only, none inline). It holds the long poll (PROTOCOL §6) of this browser's device
/// through `/app/live`; when something the family sees changes, it fetches the page again and
/// swaps in only the sections that differ, keeping focus where it was. Sections holding a form a
/// parent types into (`data-typed`) are left alone, so nothing typed is lost. Without script
/// every page works as before, by reload.
enum WebLiveScript {
    static let source = #"""
        (function () {
          "use strict";
          var token = document.body.getAttribute("data-live");
          if (!token || !window.fetch || !window.DOMParser) return;
          var failures = 0, early = 0;
          function wait(ms) { return new Promise(function (done) { setTimeout(done, ms); }); }
          function ids(root) {
            return Array.prototype.map.call(root.querySelectorAll("main > section[id]"), function (s) { return s.id; }).join(" ");
          }
          function swap(html) {
            var next = new DOMParser().parseFromString(html, "text/html");
            var main = document.querySelector("main"), fresh = next.querySelector("main");
            if (!main || !fresh) return;
            var focused = document.activeElement && document.activeElement.id;
            if (ids(document) !== ids(next)) {
              // Sections came or went: the new page whole, but what is being typed stays as it is.
              var typed = Array.prototype.slice.call(main.querySelectorAll("section[data-typed][id]"));
              main.innerHTML = fresh.innerHTML;
              typed.forEach(function (section) {
                var placeholder = document.getElementById(section.id);
                if (placeholder) placeholder.replaceWith(section);
              });
            } else {
              Array.prototype.forEach.call(fresh.querySelectorAll("main > section[id]"), function (section) {
                var old = document.getElementById(section.id);
                if (!old || old.hasAttribute("data-typed") || old.innerHTML === section.innerHTML) return;
                old.replaceWith(document.importNode(section, true));
              });
            }
            if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
            var status = document.getElementById("live-status");
            if (status) status.textContent = status.getAttribute("data-updated") || "";
            document.body.setAttribute("data-refreshed", String(Number(document.body.getAttribute("data-refreshed") || 0) + 1));
          }
          function refresh() {
            return fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } }).then(function (answer) {
              if (!answer.ok) throw new Error("page " + answer.status);
              return answer.text();
            }).then(swap);
          }
          function poll() {
            var asked = Date.now();
            fetch("/app/live?since=" + encodeURIComponent(token), { credentials: "same-origin", headers: { "Accept": "application/json" } })
              .then(function (answer) {
                if (answer.status === 401 || answer.status === 403) throw "signed out";
                // The token is no longer good (a laptop asleep past the change horizon): the page anew.
                if (answer.status === 400 || answer.status === 410) throw "stale";
                if (!answer.ok) throw new Error("poll " + answer.status);
                return answer.json();
              })
              .then(function (answer) {
                token = answer.changeToken;
                failures = 0;
                if (answer.changed) { early = 0; return refresh(); }
                // Answered early with nothing: another tab of this browser took the device's turn
                // (§6 holds a few polls a device). Wait longer each time, by a random share, so that
                // many tabs settle instead of taking turns from each other.
                if (Date.now() - asked < 20000) {
                  early += 1;
                  return wait(Math.min(30000, 1000 * Math.pow(2, early)) * (0.5 + Math.random()));
                }
                early = 0;
              })
              .then(poll, function (problem) {
                if (problem === "signed out") return;
                if (problem === "stale") { location.reload(); return; }
                failures += 1;
                wait(Math.min(30000, 1000 * Math.pow(2, failures))).then(poll);
              });
          }
          poll();
        })();
        """#
}
