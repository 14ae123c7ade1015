import Analysis
import PulseDSP
import StressModel

/// Writes the analysis events as text lines, every Double as the 16 hex digits of its bit pattern, so that the
/// host compares bits, not decimal renderings, and enumerations as their index in `allCases`
/// (Tests/EmbeddedTests/FirmwareOutput.swift parses them):
///
///     B positionQ16 reportedAt amplitudeQ8 upslopeQ8 recovered replaces extra shape seconds latency
///                                                                           a beat (flags 0 or 1)
///     I start end verdict segment                                          a judged interval
///     Q quality at rhythmOnly                                               a detector state change
///     G samples at                                                          lost samples
///     W start end quality clean rejected coverage M|- [metrics] S|- [stress]  a window
///     E samples ... / L detector ...                                        the closing counts and sizes
struct EventWriter {
  private var buffer: [UInt8] = []
  private let file: HostFile

  init(file: HostFile) {
    self.file = file
    buffer.reserveCapacity(1 << 16)
  }

  mutating func write(_ event: AnalysisEvent) {
    switch event {
    case .beat(let b):
      text("B")
      integer(b.beat.positionQ16)
      integer(b.beat.reportedAt)
      integer(b.beat.amplitudeQ8)
      integer(b.beat.upslopeQ8)
      integer(b.beat.recovered ? 1 : 0)
      integer(b.beat.replacesPrevious ? 1 : 0)
      integer(Int64(b.beat.extraPeaks))
      integer(Int64(b.beat.shapeQ8))
      bits(b.seconds)
      bits(b.latencySeconds)
    case .interval(let i):
      text("I")
      bits(i.startSeconds)
      bits(i.endSeconds)
      integer(Int64(InterBeatInterval.Verdict.allCases.firstIndex(of: i.verdict) ?? -1))
      integer(Int64(i.segment))
    case .quality(let quality, let at, let rhythmOnly):
      text("Q")
      integer(Int64(quality.rawValue))
      bits(at)
      integer(rhythmOnly ? 1 : 0)
    case .gap(let samples, let at):
      text("G")
      integer(Int64(samples))
      bits(at)
    case .window(let w):
      window(w)
    }
    newline()
  }

  mutating func window(_ w: HRVWindowSummary) {
    text("W")
    bits(w.startSeconds)
    bits(w.endSeconds)
    integer(Int64(WindowQuality.allCases.firstIndex(of: w.quality) ?? -1))
    integer(Int64(w.cleanIntervals))
    integer(Int64(w.rejectedIntervals))
    bits(w.coverage)
    if let m = w.metrics {
      text("M")
      bits(m.sdnnMs)
      bits(m.rmssdMs)
      bits(m.pnn50)
      bits(m.meanHeartRateBpm)
      integer(Int64(m.intervals))
    } else {
      text("-")
    }
    if let s = w.stress {
      text("S")
      bits(s.level)
      bits(s.confidence)
      bits(s.hrvMs)
      bits(s.heartRateBpm)
      bits(s.baseline.hrvMs)
      bits(s.baseline.restingHeartRateBpm)
      integer(s.baseline.isPersonal ? 1 : 0)
      integer(Int64(s.baseline.windowCount))
      if let at = s.baseline.computedAt { bits(at) } else { text("-") }
    } else {
      text("-")
    }
  }

  /// The core's state in bytes, without the heap its arrays use (the target's own sizes: Int is 4 bytes on the
  /// Cortex-M4, 8 on AArch64): `L detector N cleaner N windowing N analyzer N`.
  mutating func writeLayout() {
    field("L detector", Int64(MemoryLayout<BeatDetector>.size))
    field("cleaner", Int64(MemoryLayout<IBICleaner>.size))
    field("windowing", Int64(MemoryLayout<HRVWindowing>.size))
    field("analyzer", Int64(MemoryLayout<PulseAnalyzer>.size))
    newline()
  }

  /// A `key value` pair of the closing summary line.
  mutating func field(_ key: StaticString, _ value: Int64) {
    text(key)
    integer(value)
  }

  mutating func newline() {
    buffer.append(UInt8(ascii: "\n"))
    if buffer.count > 60_000 { flush() }
  }

  mutating func flush() {
    _ = buffer.withUnsafeBytes { file.write($0) }
    buffer.removeAll(keepingCapacity: true)
  }

  // MARK: - Private

  private mutating func separate() {
    if let last = buffer.last, last != UInt8(ascii: "\n") { buffer.append(UInt8(ascii: " ")) }
  }

  private mutating func text(_ word: StaticString) {
    separate()
    word.withUTF8Buffer { buffer.append(contentsOf: $0) }
  }

  private mutating func integer(_ value: Int64) {
    separate()
    if value < 0 { buffer.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    var digits: [UInt8] = []
    repeat {
      digits.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
      magnitude /= 10
    } while magnitude > 0
    buffer.append(contentsOf: digits.reversed())
  }

  private mutating func bits(_ value: Double) {
    separate()
    let hex: StaticString = "0123456789abcdef"
    let pattern = value.bitPattern
    hex.withUTF8Buffer { digits in
      for shift in stride(from: 60, through: 0, by: -4) { buffer.append(digits[Int((pattern >> UInt64(shift)) & 0xF)]) }
    }
  }
}
