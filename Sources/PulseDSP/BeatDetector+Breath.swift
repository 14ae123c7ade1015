extension BeatDetector {
  /// The high-pass runs at `BeatDetectorTuning.breathHighPassCornerHz` (the filter's pole says it: a reset of the
  /// filters returns it to 0.5 Hz with nothing else to keep in step).
  var breathEngaged: Bool { bandPass.highPass.coefficientQ15 == breathHighPassQ15 }

  /// A beat whose rise started at `foot` (the band-passed trough before it): follows how far the feet of successive
  /// beats move against the reference amplitude, and switches the high-pass to `BeatDetectorTuning
  /// .breathHighPassCornerHz` while a deep breath swings the baseline by more than the pulse, back once it does not
  /// (`BeatDetectorTuning.breathWanderEngage`). The filter's state carries over, so the signal goes on without a step;
  /// the references follow the smaller pulse within a few beats. Once per beat.
  @inline(never)
  mutating func watchBreath(foot: Int64) {
    if breath.hasFoot {
      let step = foot &- breath.lastFoot
      breath.footSteps.push(step < 0 ? 0 &- step : step)
    }
    breath.lastFoot = foot
    breath.hasFoot = true
    guard breath.footSteps.count == RecentMedian.capacity, references.amplitude > 0 else { return }
    // |foot step| / amplitude against the shares, in Q8: step × 256 against share × amplitude.
    let stepQ8 = breath.footSteps.median &* 256
    breath.wideBeats = stepQ8 > parameters.breathEngageQ8 &* references.amplitude ? breath.wideBeats + 1 : 0
    breath.narrowBeats = stepQ8 < parameters.breathReleaseQ8 &* references.amplitude ? breath.narrowBeats + 1 : 0
    if !breathEngaged && breath.wideBeats >= BeatDetectorTuning.breathEngageBeats {
      bandPass.highPass.coefficientQ15 = breathHighPassQ15
      energy.resetTemplate()
    } else if breathEngaged && breath.narrowBeats >= BeatDetectorTuning.breathReleaseBeats {
      bandPass.highPass.coefficientQ15 = bandPass.highPass.design.coefficientQ15
      energy.resetTemplate()
    }
  }
}
