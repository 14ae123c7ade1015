/// Automatic LED current control for a MAX3010x: keeps each channel's DC level at 50-80 % of the ADC's full
/// scale, where the pulse is well resolved and far from clipping, and tells when no finger is on the sensor.
///
/// Looks at one second of samples at a time (an average over whole pulses, so the pulse itself does not move the
/// current) and changes a current at most once per second: each change steps the DC level, which the beat
/// detector must settle from.
public struct LEDCurrentController: Sendable {
  // MARK: - Properties

  /// DC window to stay in, as a fraction of full scale.
  public static let targetRange = 0.50...0.80
  /// Where a correction aims: the middle of the window.
  public static let target = 0.65
  /// Below this IR level nothing is reflecting the light back: no finger. A finger at any usable current gives
  /// far more (MAX30102 application note: finger DC is typically tens of % of full scale at a few mA).
  public static let noFingerFraction = 0.05
  /// At or above this the ADC is clipping.
  public static let saturatedFraction = 0.98
  /// Largest pulse amplitude code (51 mA).
  public static let maximumCode: UInt8 = 0xFF
  /// Lowest code the controller sets: below 1 mA the LED output is not specified.
  public static let minimumCode: UInt8 = 5

  public let fullScale: Int32
  /// Samples per decision (one second).
  public let windowSamples: Int
  private var sums: [Int64] = [0, 0, 0]
  private var counts = 0
  public private(set) var contact: SensorContact = .unknown

  // MARK: - Initialization

  public init(sampleRateHz: Double, fullScale: Int32 = MAX30102Bits.fullScale) {
    self.fullScale = fullScale
    windowSamples = max(1, Int(sampleRateHz.rounded()))
  }

  // MARK: - Public

  /// The codes after this block: nil while the window is filling or when nothing needs changing. `current`
  /// holds the codes now in the part (red, IR, green); green is ignored when the block has no green samples.
  public mutating func update(
    with block: PulseBlock, current: (red: UInt8, ir: UInt8, green: UInt8)
  ) -> (red: UInt8, ir: UInt8, green: UInt8)? {
    if block.gapBefore > 0 || block.levelStepBefore { reset() }
    for i in 0..<block.count {
      sums[0] += Int64(block.red.isEmpty ? 0 : block.red[i])
      sums[1] += Int64(block.ir[i])
      sums[2] += Int64(block.green.isEmpty ? 0 : block.green[i])
    }
    counts += block.count
    guard counts >= windowSamples else { return nil }
    let levels = sums.map { Double($0) / Double(counts) / Double(fullScale) }
    reset()

    let irLevel = levels[1]
    if irLevel < Self.noFingerFraction {
      contact = .noFinger
      return nil  // raising the current would not help, and would waste the battery
    }
    contact = irLevel >= Self.saturatedFraction && current.ir <= Self.minimumCode ? .saturated : .good
    let red = block.red.isEmpty ? current.red : Self.corrected(current.red, level: levels[0])
    let ir = Self.corrected(current.ir, level: irLevel)
    let green = block.green.isEmpty ? current.green : Self.corrected(current.green, level: levels[2])
    guard red != current.red || ir != current.ir || green != current.green else { return nil }
    return (red, ir, green)
  }

  /// Forgets the partial window (after a gap or a current change, the old samples say nothing about the new level).
  public mutating func reset() {
    sums = [0, 0, 0]
    counts = 0
  }

  /// The code that moves `level` (fraction of full scale) to the target, assuming DC proportional to current.
  /// Unchanged when already in range.
  public static func corrected(_ code: UInt8, level: Double) -> UInt8 {
    guard !targetRange.contains(level) else { return code }
    let scaled: Double
    if level <= 0 {
      scaled = Double(code) * 4
    } else if level >= saturatedFraction {
      scaled = Double(code) / 2  // clipped: the true level is unknown, halve
    } else {
      scaled = Double(code) * target / level
    }
    var next = UInt8(min(Double(maximumCode), max(Double(minimumCode), scaled.rounded())))
    if next == code {
      // Make progress even when rounding would not.
      if level < targetRange.lowerBound && code < maximumCode { next = code + 1 }
      if level > targetRange.upperBound && code > minimumCode { next = code - 1 }
    }
    return next
  }
}
