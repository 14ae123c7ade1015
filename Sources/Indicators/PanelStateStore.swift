import Logging
import Platform
import Raster
import StressModel

/// Keeps `PanelState` on disk so that after a restart the driver still knows what the glass shows: a partial
/// refresh against the wrong previous frame leaves ghosts. The file is a PBM of the frame (viewable as an image)
/// whose comment lines carry the history; it is replaced atomically. A missing, unreadable or foreign file means
/// "unknown screen", and the policy answers with a full refresh.
public struct PanelStateStore: Sendable {
  public let path: String
  /// The panel the state belongs to; a file written for another panel is ignored.
  public let panelName: String
  private static let formatTag = "stressmon panel state v1"
  private let logger = Logger(label: "stressmon.indicators.panel-state")

  public init(path: String, panelName: String) {
    self.path = path
    self.panelName = panelName
  }

  /// The stored state, or nil (logged) when there is none or it cannot be used.
  public func load() -> PanelState? {
    do {
      guard let bytes = try AtomicFile.read(path) else { return nil }
      let (frame, comments) = try PBMCodec.decode(bytes)
      var fields: [String: String] = [:]
      for comment in comments {
        let parts = comment.split(separator: " ", maxSplits: 1).map(String.init)
        if parts.count == 2 { fields[parts[0]] = parts[1] }
      }
      guard comments.first == Self.formatTag, fields["panel"] == panelName,
            let last = fields["last-refresh"].flatMap({ Int64($0) }),
            let lastFull = fields["last-full-refresh"].flatMap({ Int64($0) }),
            let partials = fields["partials-since-full"].flatMap({ Int($0) })
      else {
        logger.warning("panel state file is not for this panel or incomplete; the next refresh is full",
                       metadata: ["path": "\(path)", "panel": "\(panelName)"])
        return nil
      }
      let category = fields["category"].flatMap { StressCategory(rawValue: $0) }
      return PanelState(frame: frame, category: category, lastRefreshSeconds: last, lastFullRefreshSeconds: lastFull,
                        partialsSinceFull: partials)
    } catch {
      logger.warning("cannot read the panel state; the next refresh is full",
                     metadata: ["path": "\(path)", "error": "\(error)"])
      return nil
    }
  }

  /// Writes `state` atomically.
  public func save(_ state: PanelState) throws(FileError) {
    let comments = [
      Self.formatTag,
      "panel \(panelName)",
      "category \(state.category?.rawValue ?? "none")",
      "last-refresh \(state.lastRefreshSeconds)",
      "last-full-refresh \(state.lastFullRefreshSeconds)",
      "partials-since-full \(state.partialsSinceFull)",
    ]
    try AtomicFile.write(PBMCodec.encode(state.frame, comments: comments), to: path)
  }

  /// Forgets the state (after a failed refresh the glass is in an unknown state).
  public func remove() {
    _ = unlink(path)
  }
}
