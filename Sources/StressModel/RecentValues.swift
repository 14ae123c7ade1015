/// The last `capacity` values pushed, in a ring allocated once. For the IBI cleaner's references: nothing is
/// allocated per beat, so the cleaner stays fit for a microcontroller build.
struct RecentValues: Sendable {
  let capacity: Int
  private var values: [Double]
  private var next = 0
  private(set) var count = 0

  init(capacity: Int) {
    self.capacity = max(1, capacity)
    values = [Double](repeating: 0, count: self.capacity)
  }

  mutating func push(_ value: Double) {
    values[next] = value
    next = next + 1 == capacity ? 0 : next + 1
    if count < capacity { count += 1 }
  }

  mutating func removeAll() {
    next = 0
    count = 0
  }

  /// The newest value; nil when empty.
  var newest: Double? { count == 0 ? nil : values[next == 0 ? capacity - 1 : next - 1] }

  /// Copies the `k` newest values (fewer if fewer are stored) to `buffer[at...]`; returns how many.
  func copyNewest(_ k: Int, to buffer: inout [Double], at start: Int) -> Int {
    let n = min(k, count, buffer.count - start)
    for i in 0..<n {
      var slot = next - n + i
      if slot < 0 { slot += capacity }
      buffer[start + i] = values[slot]
    }
    return n
  }
}

extension Statistics {
  /// The median of `buffer[0..<count]`, sorting that part in place (insertion sort: for the few dozen values
  /// of a streaming decision, without allocating). Nil when `count` is 0.
  static func medianInPlace(_ buffer: inout [Double], count: Int) -> Double? {
    guard count > 0 else { return nil }
    for i in 1..<max(1, count) {
      let value = buffer[i]
      var j = i - 1
      while j >= 0 && buffer[j] > value {
        buffer[j + 1] = buffer[j]
        j -= 1
      }
      buffer[j + 1] = value
    }
    let middle = count / 2
    return count % 2 == 1 ? buffer[middle] : (buffer[middle - 1] + buffer[middle]) / 2
  }
}
