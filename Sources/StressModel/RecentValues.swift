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
