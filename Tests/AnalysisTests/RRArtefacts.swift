import Platform
import StressModel

/// Real NN series with artefacts put in at known places, as a detector would produce them: a missed beat (two
/// intervals merged), an extra detection (one interval split at 25-75 %), a premature beat 20-35 % early with a
/// compensatory pause (the next beat on time) or without (the rhythm resets from it). Deterministic (seeded).
struct RRArtefacts {
  enum Kind: CaseIterable { case missed, extra, prematureCompensatory, prematureReset }

  /// Beat times, seconds.
  var beats: [Double] = []
  /// Per interval between consecutive `beats`: true when it is not a normal-to-normal interval (it touches an
  /// extra or premature beat, or spans a missed one).
  var isArtefact: [Bool] = []
  /// The true NN intervals (end time s, ms): the series' own, on the shifted timeline.
  var truth: [(end: Double, ms: Double)] = []

  /// Artefacts of `kinds` about every `spacing` beats (±50 %), from beat 8 on.
  init(nn: [Double], kinds: [Kind] = Kind.allCases, spacing: Int = 40, seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var times = [0.0]
    for ms in nn { times.append(times[times.count - 1] + ms / 1000) }
    var planned: [Int: Kind] = [:]
    var p = 8
    while p < times.count - 8 && !kinds.isEmpty {
      planned[p] = kinds[random.int(0...kinds.count - 1)]
      p += spacing / 2 + random.int(0...spacing)
    }
    // (time, is a sinus beat, index in the series)
    var out: [(time: Double, normal: Bool, index: Int)] = []
    var shift = 0.0
    var shiftAt = [Double](repeating: 0, count: times.count)
    for j in times.indices {
      shiftAt[j] = shift
      switch planned[j] {
      case .missed?:
        continue
      case .extra?:
        out.append((times[j] - shift, true, j))
        out.append((times[j] - shift + (0.25 + 0.5 * random.unit()) * (times[j + 1] - times[j]), false, -1))
      case .prematureCompensatory?:
        out.append((times[j] - shift - (0.2 + 0.15 * random.unit()) * (times[j] - times[j - 1]), false, j))
      case .prematureReset?:
        shift += (0.2 + 0.15 * random.unit()) * (times[j] - times[j - 1])
        shiftAt[j] = shift
        out.append((times[j] - shift, false, j))
      case nil:
        out.append((times[j] - shift, true, j))
      }
    }
    beats = out.map(\.time)
    for q in 0..<(out.count - 1) {
      isArtefact.append(!(out[q].normal && out[q + 1].normal && out[q + 1].index == out[q].index + 1))
    }
    for j in 1..<times.count {
      let premature: (Kind?) -> Bool = { $0 == .prematureCompensatory || $0 == .prematureReset }
      if premature(planned[j]) || premature(planned[j - 1]) { continue }
      truth.append((times[j] - shiftAt[j], nn[j - 1]))
    }
  }
}
