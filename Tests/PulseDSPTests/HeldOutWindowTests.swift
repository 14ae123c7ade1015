import EvaluationSet
import Testing

/// What the windows show around artefacts the IBI cleaner must tell from real variability, on records the evaluation
/// set does not hold: premature beats (a pattern of intervals the cleaner excludes whole), motion bursts (beats
/// moved or made up for a few seconds) and deep breaths (large pulses that are real).
@Suite(
  "HRV windows on held-out premature-beat and motion records",
  .enabled(if: EvalSet.unavailableReason == nil, "needs the shared data set (STRESSMON_DATA)"))
struct HeldOutWindowTests {
  /// The share of the shown windows whose SDNN is within 10 % of the truth, over `specs`' records scored by the chain
  /// (−1 when none is shown); every record must score.
  static func shownWithin10(_ specs: [EvalRecordSpec]) -> Double {
    let scores = specs.compactMap { try? EvalSet.score($0, analyzer: .stressmon) }
    #expect(scores.count == specs.count)
    return EvalSummary(scores).sdnnWithin10 ?? -1
  }

  @Test("Shown windows keep SDNN within 10 % of the truth around premature beats and motion bursts")
  func prematureAndMotionWindows() {
    // Given premature beats of both kinds and motion bursts, 25-400 Hz, 120 s, at seeds the evaluation set does not use
    let conditions: [EvalCondition] = [.prematureCompensatory, .prematureNoncompensatory, .motion]
    let specs = conditions.flatMap { HeldOutRun.specs($0, rates: [25, 50, 100, 200, 400], seeds: 3...8) }
    // When the chain scores them
    let within10 = Self.shownWithin10(specs)
    // Then. Measured 0.957; 0.947 without the misshapen-beat rule (`IBICleaner.misshapenBelow`) or with it on the
    // shapes of every fourth beat on the rhythm only. 0.928 before three earlier rules: a poor signal for the rhythm
    // alone keeps the cleaner's segment, so that an early beat's pair stays whole (`IBICleaner.noteIrregularRhythm`);
    // the interval before a beat over four times the usual size is set aside with it (`movementOnsetRatio`); and a
    // long-short pair is compared with two intervals when the interval after it spans two (`pairSum`).
    #expect(within10 >= 0.95, "shown windows with SDNN within 10 % \(within10)")
  }

  @Test("Steady hearts keep their real long and short intervals: a lone slow beat, a fast heart's 240 ms")
  func steadyHeartsKeepTheirExtremes() {
    // Given clean, slow (40 bpm) and fast (150-190 bpm) records at 25 and 50 Hz, 300 s, seeds 201-206 (made at issue
    // 12's twenty-first round; their real RR series hold lone long intervals 1.4-1.6 times their neighbours and a fast
    // heart's swings down to 236 ms)
    let conditions: [EvalCondition] = [.clean, .slow, .fast]
    let specs = conditions.flatMap { HeldOutRun.specs($0, rates: [25, 50], seeds: 201...206, durationSeconds: 300) }
    // When the chain scores them
    let within10 = Self.shownWithin10(specs)
    // Then. Measured 0.994 of 900 windows; 0.981 when a far-off long interval after a lengthening one is set aside
    // (without `IBICleaner.slowsAfterSinus`), 0.988 when intervals under 250 ms are implausible, 0.974 with neither.
    #expect(within10 >= 0.99, "shown windows with SDNN within 10 % \(within10)")
  }

  @Test("Inside motion bursts an interval off the rhythm at a beat unlike the pulse is set aside")
  func motionIntervalsAtMisshapenBeats() {
    // Given motion records at every rate, 300 s, seeds 301-306 (made at issue 12's twenty-second round: a movement
    // there often takes a peak for a beat 20-60 % off the rhythm with no pattern around it, in a heart whose breathing
    // swings that far)
    let specs = HeldOutRun.specs(.motion, rates: [25, 50, 100, 200, 400], seeds: 301...306, durationSeconds: 300)
    // When the chain scores them
    let within10 = Self.shownWithin10(specs)
    // Then. Measured 0.915 of 743 windows; 0.891 without the misshapen-beat rule (`IBICleaner.misshapenBelow`), 0.910
    // with it on the shapes of every fourth beat on the rhythm only (what the detector measured before).
    #expect(within10 >= 0.905, "shown windows with SDNN within 10 % \(within10)")
  }

  @Test("A beat early on an interval already long is set aside with its pause")
  func pausesAfterLateEarlyBeats() {
    // Given compensatory premature beats at every rate, 300 s, seeds 401-406 (made at issue 12's twenty-second round:
    // about one premature beat in twenty comes on an interval so long that its own is no shorter than its neighbours,
    // and its pause, kept, moves a window's SDNN by 10-30 %)
    let specs = HeldOutRun.specs(
      .prematureCompensatory, rates: [25, 50, 100, 200, 400], seeds: 401...406, durationSeconds: 300)
    // When the chain scores them
    let within10 = Self.shownWithin10(specs)
    // Then. Measured 0.977 of 731 windows; 0.949 without `IBICleaner.pauseAfterLateEarlyBeat`.
    #expect(within10 >= 0.97, "shown windows with SDNN within 10 % \(within10)")
  }

  @Test("A deep breath's large pulses do not pass for motion; a movement's do")
  func breathingIsNotMotion() throws {
    // Given records with a respiratory baseline and amplitude modulation, and with motion bursts, 25-400 Hz, 120 s,
    // at seeds the evaluation set does not use
    func outsized(_ condition: EvalCondition) throws -> (outsized: Int, intervals: Int) {
      var count = 0, all = 0
      for spec in HeldOutRun.specs(condition, rates: [25, 50, 100, 200, 400], seeds: 3...8) {
        // When the chain judges their intervals
        let intervals = try EvalAnalyzer.analysis(of: try EvalSet.record(spec)).intervals
        count += intervals.count { $0.verdict == .outsizedBeat }
        all += intervals.count
      }
      return (count, all)
    }
    let breathing = try outsized(.respiration)
    let motion = try outsized(.motion)
    // Then breathing sets aside hardly any (measured 0 of 4 034 intervals; 68 before a beat had to be twice the
    // largest of the eight before it as well as three times their median), and motion keeps its share (145 of 4 341;
    // 153 before)
    #expect(breathing.outsized <= 10, "respiration: \(breathing)")
    #expect(motion.outsized >= 130, "motion: \(motion)")
  }
}
