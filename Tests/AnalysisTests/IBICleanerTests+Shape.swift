import StressModel
import Testing

/// The cleaner with each beat's shape (`IBICleaner.misshapenBelow`): a misshapen beat narrows what the intervals at it
/// may swing, and changes nothing else.
extension IBICleanerTests {
  @Test("An interval off beyond 1.5 d at a misshapen beat is irregular; at a pulse-shaped one, or within 1.5 d, clean")
  func misshapenBeatNarrowsTheSwing() {
    // A variable heart: breathing swings it ±15 % over 8 beats, with ±3 % of seeded jitter (d at its 0.2 cap). At the
    // top of a swing interval 122 is 45 % long: about 1.5 of its reference (the median of the intervals around it, which
    // reach into the swing's trough), past 1 + 1.5 d but short of far off (1 + 3 d). Interval 162 is 20 % long: about
    // 1.27, beyond d but within 1.5 d.
    var intervals = Self.swinging(900, swing: 0.15, period: 8, jitter: 0.06, seed: 17)
    intervals[122] = 1.45 * 900
    intervals[162] = 1.2 * 900
    let beats = Self.beats(intervals)
    // Without shapes, and with every beat shaped like the pulse, both are clean (a breath swings this heart that far)
    let unknown = Self.clean(beats, shapes: [:])
    let pulseShaped = Self.clean(beats, shapes: Dictionary(uniqueKeysWithValues: beats.indices.map { ($0, 0.95) }))
    for judged in [unknown, pulseShaped] {
      let rejected = judged.indices.filter { !judged[$0].isClean }
      #expect(rejected.isEmpty, "rejected: \(rejected)")
    }
    // When the beat ending interval 122 (beat 123) is unlike the pulse, that interval is irregular, and the next one,
    // which starts at it but swings less, stays clean
    let misshapenEnd = Self.clean(beats, shapes: [123: 0.4])
    #expect(misshapenEnd[122].verdict == .irregular)
    #expect(misshapenEnd[121].isClean && misshapenEnd[123].isClean)
    // ...and the same when the beat starting it (beat 122) is
    #expect(Self.clean(beats, shapes: [122: 0.4])[122].verdict == .irregular)
    // A misshapen beat at the 20 % interval (within 1.5 d) or on a steady stretch changes nothing
    let within = Self.clean(beats, shapes: [163: 0.4, 60: 0.2, 61: 0.2])
    #expect(within[162].isClean && within[59].isClean && within[60].isClean)
    // Just at the threshold a beat counts as shaped like the pulse
    #expect(Self.clean(beats, shapes: [123: IBICleaner.misshapenBelow])[122].isClean)
  }
}
