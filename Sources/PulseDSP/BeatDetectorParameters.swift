import PortableMath

extension BeatDetector {
  /// `BeatDetectorTuning` turned into integers for one working rate: sample counts, and ratios in Q8
  /// (256 = 1.0) or, for squared scores, Q16.
  struct Parameters: Sendable {
    let decimationFactor: Int64
    let settleSamples: Int64
    let refractorySamples: Int64
    let mergeSamples: Int64
    let confirmSamples: Int64
    let settlingRiseSamples: Int64
    let zoneSamples: Int64
    let heightZoneSamples: Int64
    let decayAfterSamples: Int64
    let lostAfterSamples: Int64
    let longestIntervalSamples: Int64
    let defaultIntervalSamples: Int64
    /// 2^(−1 / (half-life × working rate)) in Q15: the per-sample decay factor.
    let decayStepQ15: Int64
    let decayFloorQ15: Int64
    let hysteresisQ8: Int64
    let zoneShareQ8: Int64
    let secondaryToleranceSamples: Int64
    let secondaryToleranceShareQ8: Int64
    let secondaryRatioQ8: Int64
    let regularToleranceQ8: Int64
    let rhythmToleranceQ8: Int64
    let phaseToleranceQ8: Int64
    let featureFloorQ8: Int64
    let breathEngageQ8: Int64
    let breathReleaseQ8: Int64
    /// Scores are compared squared: (amplitude ratio × slope ratio) in Q16 against threshold² in Q16.
    let scoreThresholdQ16: Int64
    let relaxedScoreThresholdQ16: Int64
    let templateMatchQ8: Int64
    let templateFloorQ8: Int64
    /// `templateLateCorrelation` squared, Q8: compared with `EnergyGate.lastShapeQ8` (r² × 256).
    let templateLateR2Q8: Int64
    let searchBackLongQ8: Int64
    let replaceAmplitudeQ8: Int64
    let onRhythmReplaceAmplitudeQ8: Int64
    let tallerPeakReplaceQ8: Int64
    /// Whether the working rate resolves a peak's height well enough for `standsAboveOnRhythm`.
    let heightsResolved: Bool
    let earliestBeatQ8: Int64
    let irregularEarliestBeatQ8: Int64
    let searchBackScoreQ16: Int64
    let minimumAmplitudeQ8: Int64
    let contactLossShareQ8: Int64
    let contactMemoryBlocks: Int
    let hysteresisFloorQ8: Int64
    /// Low-pass group delay plus the decimator's centre offset, in input samples × 65 536.
    let timeCorrectionQ16: Int64
    let maximumLatencyInputSamples: Int

    init(workingRateHz rate: Double, decimationFactor: Int, groupDelay: Double, minimumAmplitude: Int32) {
      typealias T = BeatDetectorTuning
      func samples(_ seconds: Double) -> Int64 { max(1, Int64((seconds * rate).rounded())) }
      func q8(_ ratio: Double) -> Int64 { Int64((ratio * 256).rounded()) }
      func q16(_ ratio: Double) -> Int64 { Int64((ratio * 65_536).rounded()) }
      self.decimationFactor = Int64(decimationFactor)
      settleSamples = samples(T.settleSeconds)
      refractorySamples = samples(T.refractorySeconds)
      mergeSamples = samples(T.mergeSeconds)
      confirmSamples = samples(T.confirmSeconds)
      settlingRiseSamples = samples(T.settlingRiseSeconds)
      zoneSamples = samples(T.secondaryZoneSeconds)
      heightZoneSamples = samples(T.secondaryHeightZoneSeconds)
      decayAfterSamples = samples(T.decayAfterSeconds)
      lostAfterSamples = samples(T.lostAfterSeconds)
      longestIntervalSamples = samples(T.longestIntervalSeconds)
      defaultIntervalSamples = samples(T.defaultIntervalSeconds)
      decayStepQ15 = Int64((PortableMath.exp2(-1 / (T.decayHalfLifeSeconds * rate)) * 32_768).rounded())
      decayFloorQ15 = Int64((T.decayFloor * 32_768).rounded())
      hysteresisQ8 = q8(T.hysteresisShare)
      zoneShareQ8 = q8(T.secondaryZoneShareOfInterval)
      secondaryToleranceSamples = samples(T.secondaryDelayToleranceSeconds)
      secondaryToleranceShareQ8 = q8(T.secondaryDelayToleranceShare)
      secondaryRatioQ8 = q8(T.secondaryRatio)
      regularToleranceQ8 = q8(T.regularTolerance)
      rhythmToleranceQ8 = q8(T.rhythmTolerance)
      phaseToleranceQ8 = q8(T.phaseTolerance)
      featureFloorQ8 = q8(T.featureFloor)
      breathEngageQ8 = q8(T.breathWanderEngage)
      breathReleaseQ8 = q8(T.breathWanderRelease)
      scoreThresholdQ16 = q16(T.scoreThreshold * T.scoreThreshold)
      relaxedScoreThresholdQ16 = q16(T.relaxedScoreThreshold * T.relaxedScoreThreshold)
      templateMatchQ8 = q8(T.templateMatchCorrelation)
      templateFloorQ8 = q8(T.templateFloorCorrelation)
      templateLateR2Q8 = q8(T.templateLateCorrelation * T.templateLateCorrelation)
      searchBackLongQ8 = q8(T.searchBackLongShare)
      replaceAmplitudeQ8 = q8(T.replaceAmplitudeRatio)
      onRhythmReplaceAmplitudeQ8 = q8(T.onRhythmReplaceAmplitudeRatio)
      tallerPeakReplaceQ8 = q8(T.tallerPeakReplaceRatio)
      heightsResolved = rate >= T.heightResolvedRateHz
      earliestBeatQ8 = q8(T.earliestBeatShare)
      irregularEarliestBeatQ8 = q8(T.irregularEarliestBeatShare)
      searchBackScoreQ16 = q16(T.searchBackScore * T.searchBackScore)
      minimumAmplitudeQ8 = Int64(max(1, minimumAmplitude)) << 8
      contactLossShareQ8 = q8(T.contactLossShare)
      contactMemoryBlocks = Int((T.contactMemorySeconds / RawSignalMonitor.blockSeconds).rounded())
      hysteresisFloorQ8 = max(1, minimumAmplitudeQ8 / 2)
      let m = Double(decimationFactor)
      timeCorrectionQ16 = Int64(((groupDelay * m - (m - 1) / 2) * 65_536).rounded())
      // Worst case: the peak is confirmed or merged at most max(merge + 1, confirm) working samples after it
      // happened, reported at the end of that working sample's input block; add the group delay and the
      // half-sample rounding of the peak's position.
      let confirmation = Double(max(mergeSamples + 1, confirmSamples))
      maximumLatencyInputSamples = Int(((confirmation + 1.5 + groupDelay) * m).rounded(.up))
    }
  }

  /// A peak waiting for its verdict or for the merge window to close.
  struct Candidate: Sendable {
    var index: Int64 = 0
    var value: Int64 = 0
    var before: Int64 = 0
    var after: Int64 = 0
    var amplitude: Int64 = 0
    var slope: Int64 = 0
    var trough: Int64 = 0
    /// The largest peak-window energy from the rise to now (`EnergyGate`).
    var energy: Int64 = 0
  }
}
