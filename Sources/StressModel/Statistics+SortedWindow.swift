/// The last `capacity` values pushed, kept in order of arrival and also sorted, so that their median and largest are
/// read without selecting them again: the IBI cleaner's spreads and beat sizes, asked for at every verdict or beat.
/// A push moves at most `capacity` values and allocates nothing (both arrays are allocated once). Values must not be
/// NaN. The median is `Statistics.medianInPlace`'s of the same values, to the bit.
struct SortedRecentValues: Sendable {
  let capacity: Int
  /// In order of arrival, a ring: `arrivals[next]` is the oldest once full.
  private var arrivals: [Double]
  private var next = 0
  /// The same values, ascending, in `sorted[0..<count]`.
  private var sorted: [Double]
  private(set) var count = 0

  init(capacity: Int) {
    self.capacity = max(1, capacity)
    arrivals = [Double](repeating: 0, count: self.capacity)
    sorted = [Double](repeating: 0, count: self.capacity)
  }

  /// Adds `value`, dropping the oldest one when full.
  mutating func push(_ value: Double) {
    let oldest = arrivals[next]
    arrivals[next] = value
    next = next + 1 == capacity ? 0 : next + 1
    let full = count == capacity
    let n = count
    sorted.withUnsafeMutableBufferPointer { s in
      // Full: the slot of one copy of the oldest value (equal copies are interchangeable) is reused, and only the
      // values between it and the new value's place move, one step towards it. Otherwise the new value goes in
      // after the values not above it.
      var k = full ? Self.firstIndex(notBelow: oldest, in: s, count: n) : n
      if full && value > oldest {
        while k + 1 < n && s[k + 1] < value {
          s[k] = s[k + 1]
          k += 1
        }
      } else {
        while k > 0 && s[k - 1] > value {
          s[k] = s[k - 1]
          k -= 1
        }
      }
      s[k] = value
    }
    if !full { count += 1 }
  }

  /// The median of the values (the mean of the two middle ones for an even count); nil when empty.
  var median: Double? {
    guard count > 0 else { return nil }
    let middle = count / 2
    return count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }

  /// The largest value; nil when empty.
  var largest: Double? { count == 0 ? nil : sorted[count - 1] }

  private static func firstIndex(notBelow value: Double, in s: UnsafeMutableBufferPointer<Double>, count: Int) -> Int {
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) / 2
      if s[middle] < value { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
