import ArgumentParser
import StressModel

/// `stressmon score`: the stress level of one HRV/HR reading, without a sensor.
struct ScoreCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "score",
    abstract: "Score one HRV / heart-rate reading: stress level, category, mood and confidence.",
    discussion: """
      The stress level (0-100) compares your HRV (SDNN, ms) with your baseline HRV and your heart rate with \
      your resting heart rate:

        stress = 100 × (0.7 × nHRV^0.8 + 0.3 × atan(2 × nHR) / (π/2))
        nHRV = max(0, (baseline − HRV) / baseline),  nHR = max(0, (HR − resting) / resting)

      Categories: [0,25) relaxed, [25,50) mild, [50,75) moderate, [75,100] high. Without --baseline-hrv and \
      --resting-hr the default baseline (50 ms, 60 bpm) is used and confidence is lowered accordingly.

      Examples:
        stressmon score --hrv 35 --hr 78
        stressmon score --hrv 62 --hr 58 --baseline-hrv 55 --resting-hr 61 --json
      """
  )

  @Option(
    name: .long, parsing: .unconditional,
    help: ArgumentHelp("Heart-rate variability, SDNN in ms (1-1000).", valueName: "ms"),
    transform: OptionParse.number("ms", StressCalculator.acceptedHRVMs))
  var hrv: Double

  @Option(
    name: .long, parsing: .unconditional, help: ArgumentHelp("Heart rate in beats per minute (20-300).", valueName: "bpm"),
    transform: OptionParse.number("bpm", StressCalculator.acceptedHeartRateBpm))
  var hr: Double

  @Option(
    name: .customLong("baseline-hrv"), parsing: .unconditional,
    help: ArgumentHelp("Your baseline HRV in ms (default 50).", valueName: "ms"),
    transform: OptionParse.number("ms", StressCalculator.acceptedHRVMs))
  var baselineHRV: Double?

  @Option(
    name: .customLong("resting-hr"), parsing: .unconditional,
    help: ArgumentHelp("Your resting heart rate in bpm (default 60).", valueName: "bpm"),
    transform: OptionParse.number("bpm", StressCalculator.acceptedHeartRateBpm))
  var restingHR: Double?

  @Flag(name: .long, help: "Print one JSON object on stdout instead of a sentence.")
  var json = false

  func run() throws {
    let result = StressCalculator().result(hrvMs: hrv, heartRateBpm: hr, baseline: baseline)
    if json {
      try CLIOutput.json(ScoreOutput(result))
    } else {
      CLIOutput.line(Self.sentence(for: result))
    }
  }

  /// The baseline the flags give: personal only when both are given.
  private var baseline: PersonalBaseline {
    var baseline = PersonalBaseline.default
    if let baselineHRV { baseline.hrvMs = baselineHRV }
    if let restingHR { baseline.restingHeartRateBpm = restingHR }
    baseline.isPersonal = baselineHRV != nil && restingHR != nil
    return baseline
  }

  static func sentence(for result: StressResult) -> String {
    let category = result.category
    let baselineNote = result.baseline.isPersonal
      ? "your baseline"
      : "the default baseline (HRV \(result.baseline.hrvMs.formatted(decimals: 0)) ms, resting HR "
        + "\(result.baseline.restingHeartRateBpm.formatted(decimals: 0)) bpm)"
    return "Stress \(StressLevel.text(result.level))/100: \(category.rawValue) (\(result.mood.rawValue)). "
      + "\(category.summary) Shown as a \(category.icon.rawValue) with \(category.pattern.description) fill and a "
      + "\(category.blink.description) \(category.colourName) light. Confidence "
      + "\(result.confidence.formatted(decimals: 2)) against \(baselineNote)."
  }
}

/// The JSON shape of `stressmon score --json`.
struct ScoreOutput: Encodable {
  var level: Double
  var category: String
  var mood: String
  var icon: String
  var pattern: String
  var blink: String
  var colour: String
  var confidence: Double
  var baselineHrvMs: Double
  var restingHrBpm: Double
  var baselinePersonal: Bool

  init(_ result: StressResult) {
    level = result.level
    category = result.category.rawValue
    mood = result.mood.rawValue
    icon = result.category.icon.rawValue
    pattern = result.category.pattern.rawValue
    blink = result.category.blink.rawValue
    colour = result.category.colour.hexString
    confidence = result.confidence
    baselineHrvMs = result.baseline.hrvMs
    restingHrBpm = result.baseline.restingHeartRateBpm
    baselinePersonal = result.baseline.isPersonal
  }

  enum CodingKeys: String, CodingKey {
    case level, category, mood, icon, pattern, blink, colour, confidence
    case baselineHrvMs = "baseline_hrv_ms"
    case restingHrBpm = "resting_hr_bpm"
    case baselinePersonal = "baseline_personal"
  }
}
