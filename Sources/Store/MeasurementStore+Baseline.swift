import SQLite
import StressModel

/// The personal baseline, computed by StressModel's `BaselineCalculator` from the stored windows, and its
/// history (every computation and every reset, newest last in the table).
///
/// Windows that count: quality `good` with SDNN and heart rate, measured after the latest reset, within the
/// calculator's look-back (30 days) on `windowEnd`. Rows whose clock is unresolved count with the time the board
/// had: they are the wearer's real windows, only their date is uncertain.
extension MeasurementStore {
  /// The baseline in force: the latest computation, or the default (after a reset, or before any).
  public func currentBaseline() throws(StoreError) -> PersonalBaseline {
    try locked { core in try core.latestBaselineEntry()?.entry.baseline ?? .default }
  }

  /// Computations and resets, newest first.
  public func baselineHistory(limit: Int? = nil) throws(StoreError) -> [BaselineHistoryEntry] {
    try locked { core in
      try core.connection.prepare(StoreCore.baselineSelect + " ORDER BY seq DESC LIMIT ?1").rows([.int(limit ?? -1)]) {
        StoreCore.decodeBaseline($0).entry
      }
    }
  }

  /// Recomputes the baseline when it is due and returns the new one (nil when not due). Due: never computed and
  /// `calculator.minimumWindows` good windows stored; still the default after a try and one more good window
  /// arrived (a try that fell short because outliers left too few windows is repeated with the next window, not
  /// 30 windows later: the person sees their own baseline as soon as their windows give one, and a try while
  /// learning sorts only a few dozen values); or personal and the calculator's refresh rule says so (a week old,
  /// or `refreshNewWindows` new windows). The daemon may call this after every window: when not due it costs one
  /// indexed count.
  @discardableResult
  public func refreshBaselineIfDue(_ calculator: BaselineCalculator = BaselineCalculator(), now: Double)
    throws(StoreError) -> PersonalBaseline?
  {
    let due = try locked { core -> Bool in
      let latest = try core.latestBaselineEntry()
      let newWindows = try core.goodWindowCount(afterSeq: latest?.lastSeq ?? 0)
      guard let latest, latest.entry.event == .computed else {
        // Never computed, or reset: worth a try once enough windows exist.
        return newWindows >= calculator.minimumWindows
      }
      guard latest.entry.baseline.isPersonal else { return newWindows >= 1 }
      return calculator.isDue(computedAt: latest.entry.baseline.computedAt, now: now, newWindows: newWindows)
    }
    guard due else { return nil }
    return try recomputeBaseline(calculator, now: now)
  }

  /// Computes the baseline from the stored windows now, records it in the history and returns it.
  @discardableResult
  public func recomputeBaseline(_ calculator: BaselineCalculator = BaselineCalculator(), now: Double)
    throws(StoreError) -> PersonalBaseline
  {
    let (windows, lastSeq) = try locked { core in
      let resetSeq = try core.latestResetSeq()
      let lastSeq = try core.connection.scalarInt("SELECT coalesce(max(seq), 0) FROM measurements") ?? 0
      let windows = try core.connection.cached(
        """
        SELECT window_end, sdnn_ms, heart_rate_bpm FROM measurements
        WHERE window_end > ?1 AND window_end <= ?2 AND seq > ?3 AND seq <= ?4 AND quality = 'good'
          AND sdnn_ms IS NOT NULL AND heart_rate_bpm IS NOT NULL
        """
      ).rows([.real(now - calculator.lookbackSeconds), .real(now), .integer(resetSeq), .integer(lastSeq)]) {
        BaselineCalculator.Window(time: $0.double(0), hrvMs: $0.double(1), heartRateBpm: $0.double(2))
      }
      return (windows, lastSeq)
    }
    // The statistics run outside the lock so the writer and the sync client are not held up by them.
    let baseline = calculator.baseline(from: windows, now: now)
    try locked { core in
      try core.insertBaseline(event: .computed, baseline: baseline, recordedAt: now, lastSeq: lastSeq)
    }
    MeasurementStore.logger.info(
      "baseline computed",
      metadata: [
        "personal": "\(baseline.isPersonal)", "hrv_ms": "\(baseline.hrvMs.formatted(decimals: 1))",
        "resting_hr_bpm": "\(baseline.restingHeartRateBpm.formatted(decimals: 1))", "windows": "\(baseline.windowCount)",
      ])
    return baseline
  }

  /// Good windows that the next computation at `now` would consider (after the latest reset, inside the
  /// look-back), for "learning: 12 of 30 windows" messages.
  public func baselineWindowCount(_ calculator: BaselineCalculator = BaselineCalculator(), now: Double) throws(StoreError) -> Int {
    try locked { core in
      let resetSeq = try core.latestResetSeq()
      return try core.connection.cached(
        """
        SELECT count(*) FROM measurements WHERE window_end > ?1 AND window_end <= ?2 AND seq > ?3 AND quality = 'good'
          AND sdnn_ms IS NOT NULL AND heart_rate_bpm IS NOT NULL
        """
      ).rows([.real(now - calculator.lookbackSeconds), .real(now), .integer(resetSeq)]) { $0.int(0) }.first ?? 0
    }
  }

  /// Forgets the personal baseline: the default applies again and only windows stored from now on count
  /// towards the next one. The history keeps the reset and everything before it.
  public func resetBaseline(at time: Double) throws(StoreError) {
    try locked { core in
      let lastSeq = try core.connection.scalarInt("SELECT coalesce(max(seq), 0) FROM measurements") ?? 0
      try core.insertBaseline(event: .reset, baseline: .default, recordedAt: time, lastSeq: lastSeq)
    }
  }
}

extension StoreCore {
  static let baselineSelect = """
    SELECT event, recorded_at, hrv_ms, resting_heart_rate_bpm, is_personal, window_count, computed_at,
      last_measurement_seq
    FROM baselines
    """

  static func decodeBaseline(_ row: SQLiteStatement) -> (entry: BaselineHistoryEntry, lastSeq: Int64) {
    let baseline = PersonalBaseline(
      hrvMs: row.double(2), restingHeartRateBpm: row.double(3), isPersonal: row.int(4) != 0, windowCount: row.int(5),
      computedAt: row.optionalDouble(6))
    let event = BaselineHistoryEntry.Event(rawValue: row.text(0) ?? "") ?? .reset
    return (BaselineHistoryEntry(event: event, recordedAt: row.double(1), baseline: baseline), row.int64(7))
  }

  func latestBaselineEntry() throws -> (entry: BaselineHistoryEntry, lastSeq: Int64)? {
    try connection.cached(Self.baselineSelect + " ORDER BY seq DESC LIMIT 1").rows { Self.decodeBaseline($0) }.first
  }

  func latestResetSeq() throws -> Int64 {
    try connection.scalarInt(
      "SELECT last_measurement_seq FROM baselines WHERE event = 'reset' ORDER BY seq DESC LIMIT 1") ?? 0
  }

  func goodWindowCount(afterSeq seq: Int64) throws -> Int {
    try connection.cached("SELECT count(*) FROM measurements WHERE seq > ?1 AND quality = 'good'")
      .rows([.integer(seq)]) { $0.int(0) }.first ?? 0
  }

  func insertBaseline(event: BaselineHistoryEntry.Event, baseline: PersonalBaseline, recordedAt: Double, lastSeq: Int64)
    throws
  {
    try connection.cached(
      """
      INSERT INTO baselines (event, recorded_at, hrv_ms, resting_heart_rate_bpm, is_personal, window_count,
        computed_at, last_measurement_seq)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
      """
    ).run([
      .text(event.rawValue), .real(recordedAt), .real(baseline.hrvMs), .real(baseline.restingHeartRateBpm),
      .bool(baseline.isPersonal), .int(baseline.windowCount), .optional(baseline.computedAt), .integer(lastSeq),
    ])
  }
}
