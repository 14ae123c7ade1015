import Hummingbird
import NIOCore

/// The one script of the hub's pages, served as a file (`/assets/hub.js`) so the pages' policy allows scripts
/// from the hub only (`script-src 'self'`, no inline script). It is ES5 (no arrow functions, `let`, promises or
/// `fetch`), so an old wall tablet runs it; without it the pages still show the hub's data in UTC, and the pages
/// that update themselves fall back to a meta refresh (`<noscript>`).
///
/// What it does:
/// - writes every `<time data-ts>` in the browser's time zone, and every `.age[data-ts]` as "3 min ago" against
///   the hub's clock (`data-now` of the page or of the last fragment), so a tablet with a wrong clock still
///   shows the right age; a time ahead of the hub's clock reads "ahead", never "just now";
/// - fetches the fragment at `data-refresh` every `data-refresh-ms` and puts it in place (no full reload), and
///   shows `#offline` while the hub does not answer.
enum PageScript {
  static let path = "/assets/hub.js"

  /// The `<script>` element for a page's head.
  static let tag = "<script src=\"\(path)\" defer></script>"

  static func add(to router: Router<HubRequestContext>) {
    router.get(RouterPath(path)) { _, _ in
      Response(
        status: .ok,
        headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache"],
        body: ResponseBody(byteBuffer: ByteBuffer(string: source)))
    }
  }

  static let source = """
    /* stressmon-hub pages: local times, ages against the hub's clock, parts that update themselves. ES5. */
    (function () {
      "use strict";
      var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
      var skew = 0;

      function pad(n) { return (n < 10 ? "0" : "") + n; }
      function clock(date) { return pad(date.getHours()) + ":" + pad(date.getMinutes()); }
      function day(date) { return date.getDate() + " " + MONTHS[date.getMonth()] + " " + date.getFullYear(); }
      function zone(date) {
        var offset = -date.getTimezoneOffset();
        var sign = offset < 0 ? "-" : "+";
        offset = Math.abs(offset);
        return "UTC" + sign + pad(Math.floor(offset / 60)) + ":" + pad(offset % 60);
      }
      function hubNow() { return new Date().getTime() / 1000 + skew; }
      function duration(seconds) {
        var minutes = Math.floor(seconds / 60);
        if (minutes < 1) { return "<1 min"; }
        if (minutes < 120) { return minutes + " min"; }
        var hours = Math.floor(minutes / 60);
        if (hours < 48) { return hours + " h"; }
        return Math.floor(hours / 24) + " days";
      }
      function age(seconds) {
        if (seconds < 0) { return duration(-seconds) + " ahead of the hub's clock"; }
        if (seconds < 60) { return "just now"; }
        return duration(seconds) + " ago";
      }
      function each(list, body) { for (var i = 0; i < list.length; i += 1) { body(list[i]); } }
      function stamp(element) { return parseFloat(element.getAttribute("data-ts")); }

      function ages(root) {
        each(root.getElementsByTagName("span"), function (span) {
          if ((" " + span.className + " ").indexOf(" age ") < 0) { return; }
          var ts = stamp(span);
          if (!isNaN(ts)) { span.textContent = "(" + age(hubNow() - ts) + ")"; }
        });
      }
      function localise(root) {
        each(root.getElementsByTagName("time"), function (time) {
          var ts = stamp(time);
          if (isNaN(ts)) { return; }
          var date = new Date(ts * 1000);
          time.textContent = time.getAttribute("data-format") === "clock" ? clock(date) : clock(date) + ", " + day(date);
        });
        each(root.getElementsByTagName("span"), function (span) {
          if ((" " + span.className + " ").indexOf(" zone ") >= 0) { span.textContent = zone(new Date()); }
        });
        ages(root);
      }
      function adopt(element) {
        var now = parseFloat(element.getAttribute("data-now"));
        if (!isNaN(now)) { skew = now - new Date().getTime() / 1000; }
        var title = element.getAttribute("data-title");
        if (title) { document.title = title; }
      }
      function offline(shown) {
        var banner = document.getElementById("offline");
        if (banner) { banner.className = shown ? "warning offline" : "warning offline hidden"; }
      }
      function refresh(live) {
        var request = new XMLHttpRequest();
        request.open("GET", live.getAttribute("data-refresh"), true);
        request.onreadystatechange = function () {
          if (request.readyState !== 4) { return; }
          if (request.status !== 200) { offline(true); return; }
          live.innerHTML = request.responseText;
          var first = live.firstElementChild || live.children[0];
          if (first) { adopt(first); }
          localise(live);
          offline(false);
        };
        request.send();
      }
      function start() {
        adopt(document.body);
        localise(document);
        each(document.querySelectorAll("[data-refresh]"), function (live) {
          var every = parseInt(live.getAttribute("data-refresh-ms"), 10) || 30000;
          setInterval(function () { refresh(live); }, every);
        });
        setInterval(function () { ages(document); }, 15000);
      }
      if (document.readyState === "loading") {
        document.addEventListener("DOMContentLoaded", start, false);
      } else {
        start();
      }
    })();

    """
}
