import ArgumentParser
import CommandSupport
import Foundation
import Hub

/// How each setting's text becomes its value: one function per kind, used by the flag (`@Option(transform:)`)
/// and by its `STRESSMON_HUB_…` variable alike, so both are checked by the same rule, once, before anything runs.
enum HubParse {
  static func port(_ text: String) throws -> Int {
    guard let port = Int(text), (0...65535).contains(port) else {
      throw ValidationError("a port is a whole number within 0-65535 (0: any free port)")
    }
    return port
  }

  /// Seconds: a positive number (fractions allowed).
  static func seconds(_ text: String) throws -> Double {
    guard let value = Double(text), value.isFinite, value > 0 else {
      throw ValidationError("seconds must be a positive number, e.g. 30 or 0.5")
    }
    return value
  }

  /// A whole number of at least 1.
  static func count(_ text: String) throws -> Int {
    guard let value = Int(text), value >= 1 else { throw ValidationError("must be a whole number of at least 1") }
    return value
  }

  /// Reads a second: a positive number.
  static func rate(_ text: String) throws -> Double {
    guard let value = Double(text), value.isFinite, value > 0 else {
      throw ValidationError("must be a positive number of reads a second, e.g. 20")
    }
    return value
  }

  /// Reads at once: at least 1.
  static func burst(_ text: String) throws -> Double {
    guard let value = Double(text), value.isFinite, value >= 1 else {
      throw ValidationError("must be a number of reads of at least 1, e.g. 40")
    }
    return value
  }

  static func logFormat(_ text: String) throws -> HubLogFormat {
    guard let format = HubLogFormat(rawValue: text) else { throw ValidationError("the log format is logfmt or json") }
    return format
  }

  /// An address to listen on: a host name or an IP address, no scheme or port.
  static func host(_ text: String) throws -> String {
    guard !text.isEmpty, !text.contains("/"), !text.contains(" ") else {
      throw ValidationError("give an address such as 0.0.0.0, 127.0.0.1 or hub.local (no scheme, no port)")
    }
    return text
  }

  /// The base URL a display or browser reaches the hub at: http(s)://host[:port], nothing after.
  static func baseURL(_ text: String) throws -> String {
    var url = Substring(text)
    while url.hasSuffix("/") { url = url.dropLast() }
    let scheme = url.hasPrefix("https://") ? "https://" : url.hasPrefix("http://") ? "http://" : nil
    guard let scheme, url.count > scheme.count, !url.dropFirst(scheme.count).contains("/") else {
      throw ValidationError("give the hub's address as http://HOST:PORT or https://HOST:PORT")
    }
    return String(url)
  }

  /// Never throws: ArgumentParser would repeat the value in its message, and this one may hold a password.
  static func postgres(_ text: String) -> PostgresURL {
    do {
      return .parsed(try PostgresConnectionOptions(url: text, allowPasswordInURL: false))
    } catch {
      return .refused("\(error)")
    }
  }
}

/// `--postgres`, parsed; a refusal is reported by `validate()` in words that never repeat the URL's password.
enum PostgresURL: Sendable {
  case parsed(PostgresConnectionOptions)
  case refused(String)
}

/// Settings from the environment (`STRESSMON_HUB_…`) under the flags: a hub run by systemd or in a container
/// is configured without a command line.
enum HubEnvironment {
  static func value(_ name: String) -> String? {
    guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
    return value
  }

  /// The flag's text, else `STRESSMON_HUB_<name>`, else nil.
  static func setting(_ flag: String?, _ name: String) -> String? {
    flag ?? value("STRESSMON_HUB_" + name)
  }

  /// The flag's value, else `STRESSMON_HUB_<name>` read by `parse` (the flag's own transform), else nil.
  static func setting<T>(_ flag: T?, _ name: String, _ parse: (String) throws -> T) throws -> T? {
    if let flag { return flag }
    guard let text = value("STRESSMON_HUB_" + name) else { return nil }
    do {
      return try parse(text)
    } catch {
      throw CLIFailure.usage("STRESSMON_HUB_\(name)='\(text.prefix(80))': \(error)")
    }
  }
}
