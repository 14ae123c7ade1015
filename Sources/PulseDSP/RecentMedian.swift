/// The median of the last five values pushed, in five plain fields (no allocation, no pointer juggling) and a
/// sorting network. Used for the detector's running references (pulse amplitude, upstroke slope, beat
/// interval): a median of five follows a real change within three beats and ignores one or two artefacts.
struct RecentMedian: Sendable {
  static let capacity = 5
  private var v0: Int64 = 0
  private var v1: Int64 = 0
  private var v2: Int64 = 0
  private var v3: Int64 = 0
  private var v4: Int64 = 0
  private var next = 0
  private(set) var count = 0
  /// The median of the stored values (mean of the middle two for an even count); 0 when empty.
  private(set) var median: Int64 = 0

  var isEmpty: Bool { count == 0 }

  mutating func push(_ value: Int64) {
    switch next {
    case 0: v0 = value
    case 1: v1 = value
    case 2: v2 = value
    case 3: v3 = value
    default: v4 = value
    }
    next = next == Self.capacity - 1 ? 0 : next + 1
    if count < Self.capacity { count += 1 }
    recompute()
  }

  /// Overwrites the value pushed last (a beat replaced by a better one).
  mutating func replaceNewest(_ value: Int64) {
    guard count > 0 else { return push(value) }
    switch next == 0 ? Self.capacity - 1 : next - 1 {
    case 0: v0 = value
    case 1: v1 = value
    case 2: v2 = value
    case 3: v3 = value
    default: v4 = value
    }
    recompute()
  }

  /// Multiplies every stored value by `factorQ15` / 2^15 (amplitude decay while beats are overdue).
  mutating func scale(byQ15 factorQ15: Int64) {
    v0 = (v0 &* factorQ15) >> 15
    v1 = (v1 &* factorQ15) >> 15
    v2 = (v2 &* factorQ15) >> 15
    v3 = (v3 &* factorQ15) >> 15
    v4 = (v4 &* factorQ15) >> 15
    recompute()
  }

  /// How many stored values lie within `tolerance` of `center`.
  func count(within tolerance: Int64, of center: Int64) -> Int {
    func near(_ value: Int64, _ slot: Int) -> Int { slot < count && abs(value &- center) <= tolerance ? 1 : 0 }
    return near(v0, 0) + near(v1, 1) + near(v2, 2) + near(v3, 3) + near(v4, 4)
  }

  mutating func removeAll() {
    next = 0
    count = 0
    median = 0
  }

  // MARK: - Private

  private mutating func recompute() {
    switch count {
    case 0: median = 0
    case 1: median = v0
    case 2: median = (v0 &+ v1) / 2
    case 3: median = max(min(v0, v1), min(max(v0, v1), v2))
    case 4:
      // Sorting network for four; the middle two are the 2nd and 3rd.
      var a = v0, b = v1, c = v2, d = v3
      Self.order(&a, &b)
      Self.order(&c, &d)
      Self.order(&a, &c)
      Self.order(&b, &d)
      Self.order(&b, &c)
      median = (b &+ c) / 2
    default:
      // Sorting network for five (nine compare-exchanges); the median is the 3rd.
      var a = v0, b = v1, c = v2, d = v3, e = v4
      Self.order(&a, &b)
      Self.order(&d, &e)
      Self.order(&c, &e)
      Self.order(&c, &d)
      Self.order(&b, &e)
      Self.order(&a, &d)
      Self.order(&a, &c)
      Self.order(&b, &d)
      Self.order(&b, &c)
      median = c
    }
  }

  @inline(__always)
  private static func order(_ x: inout Int64, _ y: inout Int64) {
    let low = min(x, y)
    y = max(x, y)
    x = low
  }
}
