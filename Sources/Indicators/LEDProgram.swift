import StressModel

/// One step of an LED program: which lines are lit (bit i = line i of the wiring) for how long.
public struct LEDStep: Sendable, Hashable {
  public var litMask: UInt8
  public var milliseconds: Int

  public init(litMask: UInt8, milliseconds: Int) {
    self.litMask = litMask
    self.milliseconds = milliseconds
  }
}

/// A repeating sequence of LED steps: what a state looks like on one wiring. Pure data, so the whole timeline is
/// known in advance and tests compare it exactly.
public struct LEDProgram: Sendable, Hashable {
  public var steps: [LEDStep]

  public init(steps: [LEDStep]) {
    self.steps = steps.filter { $0.milliseconds > 0 }
  }

  /// The program for `state` on `wiring`: the state's on/off timeline, lighting the lines its colour or position
  /// selects during the "on" segments.
  public init(state: IndicatorState, wiring: LEDWiring) {
    var shown = state
    if wiring.breathingPacerAtHighStress, state == .category(.high) { shown = .breathingPacer }
    guard let segments = shown.segments else {
      self.init(steps: [LEDStep(litMask: 0, milliseconds: 1_000)])
      return
    }
    let lit = Self.litMask(for: shown, layout: wiring.layout)
    self.init(steps: segments.map { LEDStep(litMask: $0.on ? lit : 0, milliseconds: $0.milliseconds) })
  }

  // MARK: - Timeline

  public var periodMilliseconds: Int { steps.reduce(0) { $0 + $1.milliseconds } }

  /// Whether the program never changes (steady on, or off).
  public var isConstant: Bool { Set(steps.map(\.litMask)).count <= 1 }

  /// The lit mask `elapsed` ms after the program started.
  public func litMask(atElapsed elapsed: Int64) -> UInt8 {
    step(atElapsed: elapsed).mask
  }

  /// Elapsed time of the next change of lit mask strictly after `elapsed`, nil if the program is constant.
  public func nextChange(afterElapsed elapsed: Int64) -> Int64? {
    guard !isConstant else { return nil }
    let current = litMask(atElapsed: elapsed)
    var end = step(atElapsed: elapsed).bounds.end
    // Walk whole steps until the mask differs; at most one period since the program is not constant.
    while litMask(atElapsed: end) == current { end = step(atElapsed: end).bounds.end }
    return end
  }

  /// The on/off transitions in [from, to) as (elapsed ms, mask), starting with the mask at `from`.
  public func timeline(fromElapsed from: Int64 = 0, toElapsed to: Int64) -> [(milliseconds: Int64, litMask: UInt8)] {
    var result = [(from, litMask(atElapsed: from))]
    var t = from
    while let next = nextChange(afterElapsed: t), next < to {
      result.append((next, litMask(atElapsed: next)))
      t = next
    }
    return result
  }

  // MARK: - Private

  private func step(atElapsed elapsed: Int64) -> (mask: UInt8, bounds: (start: Int64, end: Int64)) {
    let period = Int64(periodMilliseconds)
    let cycleStart = elapsed - ((elapsed % period) + period) % period
    var start = cycleStart
    for step in steps {
      let end = start + Int64(step.milliseconds)
      if elapsed < end { return (step.litMask, (start, end)) }
      start = end
    }
    return (steps.last?.litMask ?? 0, (start, start + period))
  }

  /// Which lines light for a state: colour on RGB, position on the bar, the only LED on a single wiring.
  static func litMask(for state: IndicatorState, layout: LEDWiring.Layout) -> UInt8 {
    switch layout {
    case .single:
      return 0b1
    case .rgb:
      return RGBChannels(state: state).mask
    case .bar:
      switch state {
      case .category(let category): return 1 << UInt8(StressCategory.allCases.firstIndex(of: category)!)
      case .breathingPacer: return 1 << UInt8(StressCategory.allCases.firstIndex(of: .high)!)
      case .off: return 0
      case .noContact, .measuring, .error: return 0b1111
      }
    }
  }
}

/// On/off RGB channels for a state: category colours from the category table reduced to on/off channels; the
/// non-category states take colours no category uses (blue, white, magenta); the pacer keeps high's colour.
public struct RGBChannels: Sendable, Hashable {
  public var red: Bool
  public var green: Bool
  public var blue: Bool

  /// A channel is on when the colour's channel is at least half of full scale.
  public static let onThreshold: UInt8 = 128

  public init(red: Bool, green: Bool, blue: Bool) {
    self.red = red
    self.green = green
    self.blue = blue
  }

  public init(colour: RGBColour) {
    self.init(red: colour.red >= Self.onThreshold, green: colour.green >= Self.onThreshold,
              blue: colour.blue >= Self.onThreshold)
  }

  public init(state: IndicatorState) {
    switch state {
    case .category(let category): self.init(colour: category.colour)
    case .breathingPacer: self.init(colour: StressCategory.high.colour)
    case .noContact: self.init(red: false, green: false, blue: true)
    case .measuring: self.init(red: true, green: true, blue: true)
    case .error: self.init(red: true, green: false, blue: true)
    case .off: self.init(red: false, green: false, blue: false)
    }
  }

  /// Bits in wiring order: red = bit 0, green = bit 1, blue = bit 2.
  public var mask: UInt8 { (red ? 1 : 0) | (green ? 2 : 0) | (blue ? 4 : 0) }
}
