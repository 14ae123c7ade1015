import Analysis
import PulseDSP
import StressModel

/// How the detector's live signal state and each finished window move the daemon's status (docs/daemon.md,
/// "States").
extension SamplingLoop {
  // MARK: - State machine

  /// A change of the detector's live signal state.
  static func apply(quality: SignalQuality, to status: inout MonitorStatus) {
    switch quality {
    case .noContact:
      status.phase = .noContact
      status.result = nil
    case .saturated:
      status.phase = .uncategorised(.saturated)
      status.result = nil
    case .settling, .good, .clipped:
      switch status.phase {
      case .starting, .noContact, .uncategorised(.saturated): status.phase = .settling
      default: break
      }
    case .poorSignal:
      break  // the window decides: beats may still be good enough
    }
  }

  /// A finished window: scored (measuring, or learning while the default baseline applies) or not.
  static func apply(
    window: HRVWindowSummary, wall: Double, liveQuality: SignalQuality, to status: inout MonitorStatus
  ) {
    // Windows come seconds after they end: with no finger on the sensor now, an earlier good window is not
    // what the wearer should see.
    if liveQuality == .noContact {
      status.phase = .noContact
      status.result = nil
      status.resultAt = nil
      return
    }
    if let stress = window.stress {
      status.result = stress
      status.resultAt = wall
      status.phase = stress.baseline.isPersonal ? .measuring : .learningBaseline
      if stress.baseline.isPersonal {
        status.baselineProgress = nil
      } else if let progress = status.baselineProgress {
        status.baselineProgress = (min(progress.needed, progress.windows + 1), progress.needed)
      }
      return
    }
    status.result = nil
    status.resultAt = nil
    if window.quality == .noContact {
      // The window is late (it ended seconds ago); contact is back now.
      status.phase = .settling
    } else {
      status.phase = .uncategorised(window.quality)
    }
  }
}
