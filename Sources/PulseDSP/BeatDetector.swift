/// Streaming fixed-point beat detector for PPG: one sample in, at most a few events out, integer arithmetic
/// only and no allocation per sample.
///
/// Chain (docs/detector.md has the details and the Q formats):
/// 1. Raw monitor (input rate): flat / dark / pinned / clipped half-second blocks → `noContact`,
///    `saturated` (detection suspended) or `clipped` (detection goes on).
/// 2. Boxcar decimation to ≥ 125 Hz (none below 250 Hz), polarity flip, Q8 input units.
/// 3. Band-pass 0.5-8 Hz: first-order high-pass (Q15) then second-order Butterworth low-pass (Q16).
/// 4. Peak/trough tracker with hysteresis; each peak is a candidate with its rise (amplitude), steepest
///    upslope and height.
/// 5. Candidate rules: refractory period, secondary-wave zone, a score against running medians of the last
///    five beats' amplitude and slope (relaxed inside a regular rhythm), merging of close peaks, decay of the
///    references when beats are overdue, re-learning when lock is lost.
/// 6. Beat time: parabolic interpolation around the peak, corrected for the low-pass delay and decimation.
///
/// Latency: a beat is reported at most `maximumLatencySeconds` after its peak (≤ 0.25 s at rates ≥ 100 Hz,
/// ≤ 0.3 s from 25 Hz up). Gaps: call `reset(gap:)`; nothing is ever stitched across one.
public struct BeatDetector: Sendable {
  // MARK: - Properties

  public let configuration: BeatDetectorConfiguration
  /// Input samples averaged into one working sample.
  public let decimationFactor: Int
  /// The rate the peak logic runs at: input rate / decimation factor.
  public let workingRateHz: Double
  /// Upper bound of (report position − peak position), in input samples.
  public let maximumLatencySamples: Int
  /// The current view of the input.
  public private(set) var quality: SignalQuality = .settling
  /// Stream position of the next input sample (samples processed plus gaps).
  public private(set) var position: Int64 = 0

  var monitor: RawSignalMonitor
  var decimator: BoxcarDecimator
  var bandPass: BandPass
  var energy: EnergyGate
  let invert: Bool
  let parameters: Parameters

  // The state, in named parts (BeatDetectorState.swift).
  var clock = WorkingClock()
  var contact = ContactWatch()
  var tracker = PeakTracker()
  var acquisition = Acquisition()
  var merge = MergeWindow()
  var references = PulseReferences()
  var breath = BreathWatch()
  /// The high-pass pole while a deep breath swings the baseline (`BeatDetectorTuning.breathHighPassCornerHz`), Q15.
  let breathHighPassQ15: Int64
  var rhythm = RhythmTracker()
  var secondary = SecondaryWaveWatch()
  var searchBack = SearchBack()
  var outbox = EventOutbox()

  // MARK: - Initialization

  public init(configuration: BeatDetectorConfiguration) throws(BeatDetectorError) {
    let rate = configuration.sampleRateHz
    guard rate.isFinite, BeatDetectorConfiguration.supportedRates.contains(rate) else {
      throw .unsupportedRate(rate)
    }
    self.configuration = configuration
    decimationFactor = min(1024, max(1, Int(rate / BeatDetectorTuning.workingRateHz)))
    workingRateHz = rate / Double(decimationFactor)
    monitor = RawSignalMonitor(configuration: configuration)
    decimator = BoxcarDecimator(factor: decimationFactor)
    let highPass = HighPassDesign(cornerHz: BeatDetectorTuning.highPassCornerHz, sampleRateHz: workingRateHz)
    let lowCorner = min(BeatDetectorTuning.lowPassCornerHz, BeatDetectorTuning.lowPassMaximumShareOfRate * workingRateHz)
    let lowPass = ButterworthLowPassDesign(cornerHz: lowCorner, sampleRateHz: workingRateHz)
    bandPass = BandPass(highPass: highPass, lowPass: lowPass)
    breathHighPassQ15 =
      HighPassDesign(cornerHz: BeatDetectorTuning.breathHighPassCornerHz, sampleRateHz: workingRateHz).coefficientQ15
    energy = EnergyGate(workingRateHz: workingRateHz)
    invert = configuration.polarity == .inverted
    parameters = Parameters(
      workingRateHz: workingRateHz, decimationFactor: decimationFactor, groupDelay: lowPass.groupDelaySamples,
      minimumAmplitude: configuration.minimumPulseAmplitude)
    maximumLatencySamples = parameters.maximumLatencyInputSamples
    restart(at: 0, settle: true)
  }

  /// Convenience: a detector for `sampleRateHz` and `polarity` with default sensor settings.
  public init(sampleRateHz: Double, polarity: PulsePolarity = .normal) throws(BeatDetectorError) {
    try self.init(configuration: BeatDetectorConfiguration(sampleRateHz: sampleRateHz, polarity: polarity))
  }

  /// The latency bound in seconds.
  public var maximumLatencySeconds: Double { Double(maximumLatencySamples) / configuration.sampleRateHz }

  /// Upper bound of how far behind the input any event is reported, in input samples: beats within
  /// `maximumLatencySamples`, quality changes of the raw monitor at the end of its half-second block. A
  /// consumer that has seen this many samples past a time knows every event before that time.
  public var maximumReportDelaySamples: Int { max(maximumLatencySamples, monitor.blockLength) + 1 }

  /// While search-back holds a rejected candidate after the last beat, a beat may still be reported there, an
  /// interval or two late (`DetectedBeat.recovered`): the stream position of that last beat, else nil. A consumer
  /// that closes time spans (HRV windows) must not close one that ends after it.
  public var recoveryPendingAfter: Int64? {
    guard searchBack.has, rhythm.hasLastBeat else { return nil }
    return clock.origin &+ rhythm.lastBeatIndex &* parameters.decimationFactor
  }

  // MARK: - Public

  /// Processes one input sample; calls `handle` for each event it completes (usually none).
  public mutating func process(_ sample: Int32, _ handle: (BeatDetectorEvent) -> Void) {
    energy.makeUnique()
    if step(sample, undecimated: decimator.factor == 1) { drain(handle) }
  }

  /// Processes a block of contiguous input samples, calling `handle` for each event in order.
  public mutating func process(_ samples: UnsafeBufferPointer<Int32>, _ handle: (BeatDetectorEvent) -> Void) {
    energy.makeUnique()
    let undecimated = decimator.factor == 1
    for sample in samples where step(sample, undecimated: undecimated) { drain(handle) }
  }

  /// Processes an array of contiguous input samples.
  public mutating func process(_ samples: [Int32], _ handle: (BeatDetectorEvent) -> Void) {
    samples.withUnsafeBufferPointer { process($0, handle) }
  }

  /// Starts afresh after `gap` lost samples (0 for a plain restart): filters, references and the peak
  /// tracker are cleared, the stream position moves on by `gap`, and nothing is stitched across. Reports
  /// `settling` through the next `process` call's handler if the quality was something else.
  public mutating func reset(gap: Int = 0) {
    position &+= Int64(max(0, gap))
    clock = WorkingClock(index: 0, origin: position, previousValue: 0)
    monitor.reset()
    decimator.reset()
    contact.rawBad = false
    contact.watchesReturn = false
    outbox.readyBeat = nil
    outbox.recoveredBeat = nil
    contact.level = 0
    restartFilters()
    setQuality(.settling, at: position)
  }

  // MARK: - Per sample

  /// Runs one sample through the chain; true when an event is ready to drain. `undecimated`: the detector works
  /// at the input rate (decimation factor 1: inputs below 250 Hz), where the mean of one sample is the sample in
  /// Q8 and the boxcar's sum, countdown and multiply (a twentieth of the detector at 100 Hz) are skipped. Callers
  /// read it once per block, so the test is on a register.
  @inline(__always)
  mutating func step(_ sample: Int32, undecimated: Bool) -> Bool {
    position &+= 1
    if let block = monitor.observe(sample) { handleBlock(block) }
    // One call of the (inlined) working step, so that it is compiled once.
    if undecimated || decimator.add(sample) {
      stepWorking(undecimated ? Int64(sample) &<< 8 : decimator.takeMeanQ8())
    }
    return outbox.hasBeat || quality != outbox.reportedQuality
  }

  mutating func drain(_ handle: (BeatDetectorEvent) -> Void) {
    if let beat = outbox.recoveredBeat {
      // The earlier of two, kept by search-back, is looked for only here. (In the outbox, with a test of its own, it
      // cost two instructions a sample at 100 Hz; here one.)
      if let earlier = searchBack.earlierBeat {
        searchBack.earlierBeat = nil
        handle(.beat(earlier))
      }
      outbox.recoveredBeat = nil
      handle(.beat(beat))
    }
    if let beat = outbox.readyBeat {
      outbox.readyBeat = nil
      handle(.beat(beat))
    }
    if quality != outbox.reportedQuality {
      outbox.reportedQuality = quality
      handle(.quality(quality, at: outbox.qualityChangedAt, rhythmOnly: outbox.qualityRhythmOnly))
    }
  }

  /// One working-rate sample (Q8 input units) through the band-pass and the peak tracker.
  @inline(__always)
  mutating func stepWorking(_ meanQ8: Int64) {
    let x = invert ? 0 &- meanQ8 : meanQ8
    let value = bandPass.step(x)
    if clock.index & energy.strideMask == 0 {
      energy.step(value)
      // The peak-window average centred on the tracker's current peak, and on the candidate waiting to be
      // decided: taken at the first gate sample at or after the centre.
      let centre = clock.index &- energy.centreDelay
      if !tracker.energyTaken && centre >= tracker.peakIndex {
        tracker.energy = energy.peakSum
        tracker.energyTaken = true
      }
      if merge.isOpen && !merge.energyTaken && centre >= merge.candidate.index {
        merge.candidate.energy = energy.peakSum
        merge.energyTaken = true
      }
    }
    let index = clock.index
    clock.index &+= 1
    // No special case for the first working sample: the band-pass starts from its first input (primed high-pass,
    // zeroed low-pass), so its first output is exactly 0, as is `previousValue` after a start or a gap.
    let slope = value &- clock.previousValue
    clock.previousValue = value
    if references.isEmpty { learnRange(value: value, slope: slope, index: index) }
    if tracker.track(value: value, slope: slope, index: index) { candidate(at: index) }
    if merge.isOpen {
      if index &- merge.candidate.index > parameters.mergeSamples { acceptPending(at: index) }
    } else if index > rhythm.decayFrom {
      overdue(at: index)
    }
  }

  /// A finished half-second block of raw input. Raw intensity (pulses down) falls to a small fraction of its level
  /// when the finger leaves the sensor, whatever the sensor: a block whose mean is below
  /// `BeatDetectorTuning.contactLossShare` of the level seen while beats were good is "no contact". Contact is back
  /// when the level returns, or when it rises to `contactReturnRise` × the darkest block since it was lost (a finger
  /// put back more lightly: the light comes back from the dark, whereas ambient light while lifted stays where it
  /// fell), or after `contactMemorySeconds`. Without this, noise after the finger left would be searched for beats.
  mutating func handleBlock(_ reported: RawSignalMonitor.BlockState) {
    if invert {
      let mean = monitor.lastMean
      contact.blocksSince += 1
      if contact.level > 0 && contact.blocksSince <= parameters.contactMemoryBlocks
        && mean < (contact.level &* parameters.contactLossShareQ8) >> 8
      {
        // Out of line, as a tail call: the path with contact saves no registers for it.
        return handleDimBlock(reported, mean: mean)
      }
      if contact.watchesReturn { return handleReturnBlock(reported, mean: mean) }
      if reported == .usable && quality == .good {
        contact.level = mean
        contact.blocksSince = 0
      }
    }
    handleBlockState(reported)
  }

  @inline(never)
  mutating func handleDimBlock(_ reported: RawSignalMonitor.BlockState, mean: Int64) {
    handleBlockState(staysDark(mean) ? .dark : reported)
  }

  /// A block after contact came back. The light climbs for about a second after a finger is put down, and the
  /// filters restarted on one sample of the climb: while the light goes on moving from that sample (this block's mean
  /// more than 1/8 away) and no beat has been found since, they start again from here. Left on the step (tens of
  /// thousands of counts), the band-passed signal lies on a slope no pulse on it may confirm a peak from for seconds.
  /// A beat found on the climb is kept, and so is the restart once the light stays.
  @inline(never)
  mutating func handleReturnBlock(_ reported: RawSignalMonitor.BlockState, mean: Int64) {
    let step = mean > contact.primedLevel ? mean &- contact.primedLevel : contact.primedLevel &- mean
    contact.watchesReturn = step > mean >> 3 && !rhythm.hasLastBeat && reported == .usable && !contact.rawBad
    if contact.watchesReturn {
      restartFilters()
    } else {
      handleBlockState(reported)
    }
  }

  /// The filters start afresh from the next sample (primed with it), and the detector learns again after the
  /// settling time. (Out of line: a rare path, called from two places.)
  @inline(never)
  mutating func restartFilters() {
    bandPass.reset()
    breath = BreathWatch()
    energy.reset()
    restart(at: clock.index, settle: true)
    contact.primedLevel = Int64(monitor.lastSample)
  }

  /// A block under the contact level's share: still dark, unless the light has come back from the darkest level
  /// since and settled (then that lower level is the contact level).
  mutating func staysDark(_ mean: Int64) -> Bool {
    // The previous block was dark too when it was the one just before (no store on the path with contact).
    let continuing = contact.darkBlock == contact.blocksSince - 1
    contact.darkBlock = contact.blocksSince
    if !continuing || mean < contact.darkest {
      contact.darkest = mean
      contact.previousMean = mean
      return true
    }
    // Back at a lower level only once it has settled there (two blocks within 1/8 of each other): while the
    // light is still rising, the filters would restart on the step.
    let previous = contact.previousMean
    contact.previousMean = mean
    let change = mean > previous ? mean &- previous : previous &- mean
    let back = mean >= contact.darkest &* BeatDetectorTuning.contactReturnRise
      && mean >= contact.level >> BeatDetectorTuning.contactReturnFloorShift && change <= mean >> 3
    if !back { return true }
    contact.level = mean
    contact.blocksSince = 0
    return false
  }

  /// `rhythmOnly`: a poor signal for the rhythm alone, the pulse clean (`BeatDetectorEvent.quality`).
  mutating func setQuality(_ newQuality: SignalQuality, at stream: Int64, rhythmOnly: Bool = false) {
    guard newQuality != quality else { return }
    quality = newQuality
    outbox.qualityChangedAt = stream
    outbox.qualityRhythmOnly = rhythmOnly
  }

  /// What a block does: bad blocks suspend detection, the first good one after them restarts learning.
  @inline(__always)
  mutating func handleBlockState(_ block: RawSignalMonitor.BlockState) {
    let blockStart = position &- Int64(monitor.blockLength)
    switch block {
    case .usable:
      if contact.rawBad {
        contact.rawBad = false
        // The level usually jumps when contact returns (a finger back on a raw-intensity sensor: tens of
        // thousands of counts): the filters start afresh from here instead of ringing for seconds, and the next
        // blocks show whether the light still climbs (`handleReturnBlock`).
        restartFilters()
        contact.watchesReturn = invert
        setQuality(.settling, at: position &- 1)
      } else if quality == .clipped {
        setQuality(rhythm.hasLastBeat && rhythm.isSteady ? .good : .settling, at: position &- 1)
      }
    case .clipped:
      // Detection goes on (the flat top's middle is still a usable peak); the state says so.
      if !contact.rawBad { setQuality(.clipped, at: max(clock.origin, blockStart)) }
    case .flat, .dark:
      contact.rawBad = true
      merge.isOpen = false
      setQuality(.noContact, at: max(clock.origin, blockStart))
    case .saturated:
      contact.rawBad = true
      merge.isOpen = false
      setQuality(.saturated, at: max(clock.origin, blockStart))
    }
  }
}
