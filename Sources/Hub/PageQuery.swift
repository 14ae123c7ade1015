import DayReport
import Foundation
import Hummingbird

/// The query parameters of the fleet, day and week pages, checked at the edge: an unknown value is a 400 that
/// names the values allowed, never a silently different page.
struct PageQuery: Sendable, Equatable {
  /// `part=live`: only the part of the page that updates itself (the script fetches it).
  var live = false
  var order = DeviceOrder.device
  var descending = false
  /// 1-based page number.
  var page = 1
  var limit: Int
  /// Day pages: `zoom=day` shows the whole day instead of the measured span.
  var wholeDay = false

  static let maxFleetPageSize = 500

  init(_ parameters: Parameters? = nil, defaultLimit: Int) throws {
    limit = defaultLimit
    guard let parameters else { return }
    if let part = parameters.get("part") {
      guard part == "live" else { throw Self.invalid("part", part, allowed: "live") }
      live = true
    }
    if let sort = parameters.get("sort") {
      guard let order = DeviceOrder(rawValue: sort) else {
        throw Self.invalid("sort", sort, allowed: DeviceOrder.allCases.map(\.rawValue).joined(separator: ", "))
      }
      self.order = order
    }
    if let direction = parameters.get("dir") {
      guard ["asc", "desc"].contains(direction) else { throw Self.invalid("dir", direction, allowed: "asc, desc") }
      // Each order has its natural direction; `dir` names the other one.
      descending = direction == "desc"
    }
    if let text = parameters.get("page") {
      guard text.utf8.count <= 9, let page = Int(text), page >= 1 else {
        throw Self.invalid("page", text, allowed: "a whole number from 1")
      }
      self.page = page
    }
    if let text = parameters.get("limit") {
      guard text.utf8.count <= 4, let limit = Int(text), (1...Self.maxFleetPageSize).contains(limit) else {
        throw Self.invalid("limit", text, allowed: "a whole number within 1-\(Self.maxFleetPageSize)")
      }
      self.limit = limit
    }
    if let zoom = parameters.get("zoom") {
      guard ["day", "measured"].contains(zoom) else { throw Self.invalid("zoom", zoom, allowed: "day, measured") }
      wholeDay = zoom == "day"
    }
  }

  var offset: Int { (page - 1) * limit }

  private static func invalid(_ name: String, _ value: String, allowed: String) -> HubError {
    HubError(.badRequest, "invalid_query", "\(name) '\(value.prefix(40))' is not one of: \(allowed)")
  }
}

/// Links between the hub's pages. A token that came as `?key=` goes on with every link (a bookmark of a kiosk
/// or fleet page keeps working); one that came in a header is never written into the page.
struct PageLinks: Sendable {
  let key: String?

  init(_ presented: HubAccess.Presented) {
    if case .query(let key) = presented { self.key = key } else { key = nil }
  }

  /// `path` with the query items, then the key.
  func path(_ path: String, _ items: [(String, String)] = []) -> String {
    let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
    let all = items + (key.map { [("key", $0)] } ?? [])
    guard !all.isEmpty else { return path }
    return path + "?" + all.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
      .joined(separator: "&")
  }

  var fleet: String { path("/devices") }
  func day(_ device: String, _ day: LocalDay, _ items: [(String, String)] = []) -> String {
    path("/devices/\(device)/days/\(day)", items)
  }
  func svg(_ device: String, _ day: LocalDay) -> String { path("/devices/\(device)/days/\(day).svg") }
  func week(_ device: String, _ day: LocalDay) -> String { path("/devices/\(device)/weeks/\(day)") }
}
