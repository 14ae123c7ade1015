import Indicators
import LinuxIO
import StressModel
import Testing

@Suite("LED programs: every state has its own on/off timeline")
struct LEDProgramTests {
  static let single = LEDWiring(chipLabel: "sim", layout: .single(.name("LED")))
  static let rgb = LEDWiring(chipLabel: "sim", layout: .rgb(red: .offset(5), green: .offset(6), blue: .offset(13)))
  static let bar = LEDWiring(
    chipLabel: "sim", layout: .bar(relaxed: .offset(5), mild: .offset(6), moderate: .offset(13), high: .offset(19)))

  /// On/off only (any LED lit), sampled every 25 ms over `milliseconds`.
  static func onOff(_ state: IndicatorState, wiring: LEDWiring = single, milliseconds: Int64 = 10_000) -> [Bool] {
    let program = LEDProgram(state: state, wiring: wiring)
    return stride(from: Int64(0), to: milliseconds, by: 25).map { program.litMask(atElapsed: $0) != 0 }
  }

  @Test("The four categories differ in their on/off pattern alone, on every wiring")
  func categoriesDifferByRhythm() {
    for wiring in [Self.single, Self.rgb, Self.bar] {
      // Given the on/off timelines with colour and position thrown away
      let timelines = StressCategory.allCases.map { Self.onOff(.category($0), wiring: wiring) }
      // Then no two categories share one
      #expect(Set(timelines).count == 4, "\(wiring.layout)")
    }
  }

  @Test("Each category's timeline is its BlinkPattern from the category table, transition for transition")
  func timelinesFollowTheTable() {
    for category in StressCategory.allCases {
      // Given the table's segments, expanded into transitions over 4 s
      var expected: [(Int64, Bool)] = []
      var t: Int64 = 0
      while t < 4_000 {
        for segment in category.blink.segments where t < 4_000 {
          if expected.last?.1 != segment.on { expected.append((t, segment.on)) }
          t += Int64(segment.milliseconds)
        }
      }
      // When the program's timeline is listed
      let program = LEDProgram(state: .category(category), wiring: Self.single)
      let actual = program.timeline(toElapsed: 4_000).map { ($0.milliseconds, $0.litMask != 0) }
      // Then they agree exactly
      #expect(actual.map(\.0) == expected.map(\.0), "\(category)")
      #expect(actual.map(\.1) == expected.map(\.1), "\(category)")
    }
  }

  @Test("No contact, measuring, error and the pacer differ from each other and from every category")
  func statesDifferFromCategories() {
    let states: [IndicatorState] = StressCategory.allCases.map { .category($0) }
      + [.noContact, .measuring, .error, .breathingPacer]
    let timelines = states.map { Self.onOff($0, milliseconds: 20_000) }
    #expect(Set(timelines).count == states.count)
    #expect(Self.onOff(.off).allSatisfy { !$0 })
  }

  @Test("The breathing pacer paces 6 breaths a minute: lit 4 s to breathe in, dark 6 s to breathe out")
  func breathingPacer() {
    let program = LEDProgram(state: .breathingPacer, wiring: Self.single)
    #expect(program.periodMilliseconds * StatusRhythm.breathsPerMinute == 60_000)
    #expect(program.timeline(toElapsed: 60_000).count == 2 * StatusRhythm.breathsPerMinute)
    #expect(program.litMask(atElapsed: 3_999) == 1 && program.litMask(atElapsed: 4_000) == 0)
  }

  @Test("A wiring that asks for it shows the pacer instead of the fast blink at high stress, in high's place")
  func pacerReplacesHigh() {
    var wiring = Self.bar
    wiring.breathingPacerAtHighStress = true
    let high = LEDProgram(state: .category(.high), wiring: wiring)
    #expect(high == LEDProgram(state: .breathingPacer, wiring: wiring))
    #expect(high.steps.map(\.litMask).max() == 0b1000)  // the "high" LED of the bar
    #expect(LEDProgram(state: .category(.high), wiring: Self.bar).periodMilliseconds == 250)
  }

  @Test("The bar lights the LED at the category's position; other states light all four")
  func barPosition() {
    for (index, category) in StressCategory.allCases.enumerated() {
      let masks = Set(LEDProgram(state: .category(category), wiring: Self.bar).steps.map(\.litMask))
      #expect(masks.subtracting([0]) == [UInt8(1) << UInt8(index)])
    }
    #expect(LEDProgram(state: .error, wiring: Self.bar).steps.first?.litMask == 0b1111)
  }

  @Test("RGB shows the table's colours reduced to on/off channels; states use colours no category uses")
  func rgbColours() {
    func channels(_ state: IndicatorState) -> RGBChannels { RGBChannels(state: state) }
    #expect(channels(.category(.relaxed)) == RGBChannels(red: false, green: true, blue: false))
    #expect(channels(.category(.mild)) == RGBChannels(red: true, green: true, blue: false))
    #expect(channels(.category(.moderate)) == channels(.category(.mild)))  // orange needs PWM: rhythm tells them apart
    #expect(channels(.category(.high)) == RGBChannels(red: true, green: false, blue: false))
    let categoryColours = Set(StressCategory.allCases.map { channels(.category($0)) })
    for state in [IndicatorState.noContact, .measuring, .error] {
      #expect(!categoryColours.contains(channels(state)), "\(state)")
    }
  }
}
