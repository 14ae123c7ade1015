import Foundation
@testable import Hub
import TestSupport
import Testing

/// The page script on an old tablet's terms: it must be ES5. Duktape (Debian's `duktape`, an ES5.1 engine without
/// ES2015 syntax, promises or fetch) runs the real script against a small stand-in for the DOM: times written in
/// the zone of the run, ages against the hub's clock, the live part fetched and put in place, the offline banner.
@Suite("The page script on an ES5 engine")
struct PageScriptTests {
  static let duk = ["/usr/bin/duk", "/usr/local/bin/duk"].first { FileManager.default.isExecutableFile(atPath: $0) }

  /// A DOM just large enough for the script: elements with attributes, children, class names and text.
  static let harness = """
    var log = [];
    function El(tag, attributes, children) {
      this.tagName = tag; this.attributes = attributes || {}; this.children = children || [];
      this.className = this.attributes["class"] || ""; this.textContent = ""; this.html = "";
    }
    El.prototype.getAttribute = function (name) {
      return this.attributes.hasOwnProperty(name) ? this.attributes[name] : null;
    };
    El.prototype.getElementsByTagName = function (tag) {
      var found = [];
      function walk(node) {
        for (var i = 0; i < node.children.length; i += 1) {
          if (node.children[i].tagName === tag) { found.push(node.children[i]); }
          walk(node.children[i]);
        }
      }
      walk(this);
      return found;
    };
    Object.defineProperty(El.prototype, "innerHTML", {
      get: function () { return this.html; },
      set: function (html) {
        this.html = html;
        var now = /data-now="([0-9]+)"/.exec(html);
        var title = /data-title="([^"]*)"/.exec(html);
        var attributes = {};
        if (now) { attributes["data-now"] = now[1]; }
        if (title) { attributes["data-title"] = title[1]; }
        this.children = [new El("div", attributes, [new El("span", { "class": "age", "data-ts": "1764590400" })])];
        this.firstElementChild = this.children[0];
      }
    });
    var time = new El("time", { "data-ts": "1764590700" });
    var clock = new El("time", { "data-ts": "1764590700", "data-format": "clock" });
    var age = new El("span", { "class": "age", "data-ts": "1764590100" });
    var ahead = new El("span", { "class": "age", "data-ts": "1764591030" });
    var zone = new El("span", { "class": "zone" });
    var live = new El("div", { "data-refresh": "/devices?part=live&key=k", "data-refresh-ms": "10000" });
    var banner = new El("p", { "class": "warning offline hidden", id: "offline" });
    var body = new El("body", { "data-now": "1764590700" }, [time, clock, age, ahead, zone, live, banner]);
    var document = {
      readyState: "complete", body: body, title: "before",
      getElementsByTagName: function (tag) { return body.getElementsByTagName(tag); },
      getElementById: function (id) { return id === "offline" ? banner : null; },
      querySelectorAll: function () { return [live]; },
      addEventListener: function () { throw new Error("not loading"); }
    };
    var timers = [];
    function setInterval(f, ms) { timers.push({ f: f, ms: ms }); }
    var requests = [];
    function XMLHttpRequest() { requests.push(this); }
    XMLHttpRequest.prototype.open = function (method, url) { this.method = method; this.url = url; };
    XMLHttpRequest.prototype.send = function () {};
    function answer(request, status, text) {
      request.readyState = 4; request.status = status; request.responseText = text; request.onreadystatechange();
    }
    """

  /// What the harness prints once the script ran, refreshed twice (once answered, once refused).
  static let probe = """
    var first = { time: time.textContent, clock: clock.textContent, age: age.textContent, ahead: ahead.textContent,
      zone: zone.textContent, timers: timers.length, every: timers[0].ms };
    timers[0].f();
    var url = requests[0].method + " " + requests[0].url;
    answer(requests[0], 200, '<div class="fleet" data-now="1764597660" data-title="Fleet now">x</div>');
    var swapped = { html: live.innerHTML, title: document.title, banner: banner.className,
      liveAge: live.children[0].children[0].textContent };
    timers[0].f();
    answer(requests[1], 503, "");
    print(JSON.stringify({ first: first, url: url, swapped: swapped, offline: banner.className }));
    """

  @Test("the script parses and runs on an ES5 engine, writes local times and ages, swaps the live part")
  func runsOnES5() throws {
    guard let duk = Self.duk else {
      print("SKIPPED ES5 script test: duktape not installed (scripts/setup --test installs it)")
      return
    }
    let directory = try TemporaryDirectory("page-script")
    defer { directory.remove() }
    let file = try directory.write("run.js", Self.harness + PageScript.source + Self.probe)
    let run = try runProgram("/usr/bin/env", ["TZ=Asia/Kolkata", duk, file])
    #expect(run.status == 0, "\(run.output)")
    let json = try #require(run.output.split(separator: "\n").last.map(String.init))
    let result = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let first = try #require(result["first"] as? [String: Any])
    // 12:05 UTC is 17:35 in Kolkata; the hub's clock is 1764590700
    #expect(first["time"] as? String == "17:35, 1 Dec 2025")
    #expect(first["clock"] as? String == "17:35")
    #expect(first["zone"] as? String == "UTC+05:30")
    #expect(first["age"] as? String == "(10 min ago)")
    #expect(first["ahead"] as? String == "(5 min ahead of the hub's clock)")
    #expect(first["timers"] as? Int == 2 && first["every"] as? Int == 10_000)
    #expect(result["url"] as? String == "GET /devices?part=live&key=k")
    let swapped = try #require(result["swapped"] as? [String: Any])
    #expect((swapped["html"] as? String)?.hasPrefix("<div class=\"fleet\"") == true)
    #expect(swapped["title"] as? String == "Fleet now")
    #expect(swapped["banner"] as? String == "warning offline hidden")
    // The fragment's own clock (two hours on) now dates the ages
    #expect(swapped["liveAge"] as? String == "(2 h ago)")
    #expect(result["offline"] as? String == "warning offline")
  }

  @Test("the script uses no syntax or API newer than ES5")
  func noModernSyntax() {
    let source = PageScript.source
    for modern in ["=>", "`", "let ", "const ", "class ", "async ", "await ", "fetch(", "Promise", "...", ".replaceWith(",
                   "?.", "??", "for (var i of", ".closest(", ".includes("]
    {
      #expect(!source.contains(modern), "'\(modern)' is not ES5")
    }
  }
}
