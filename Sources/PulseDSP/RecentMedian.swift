/// The median of the last five values pushed, kept in fixed storage (no allocation). Used for the detector's
/// running references (pulse amplitude, upstroke slope, beat interval): a median of five follows a real
/// change within three beats and ignores one or two artefacts.
struct RecentMedian: Sendable {
  static let capacity = 5
  private var values: (Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0)
  private var next = 0
  private(set) var count = 0
  /// The median of the stored values (mean of the middle two for an even count); 0 when empty.
  private(set) var median: Int64 = 0

  var isEmpty: Bool { count == 0 }

  mutating func push(_ value: Int64) {
    withUnsafeMutableBytes(of: &values) { raw in
      raw.storeBytes(of: value, toByteOffset: next * MemoryLayout<Int64>.stride, as: Int64.self)
    }
    next = next == Self.capacity - 1 ? 0 : next + 1
    count = min(count + 1, Self.capacity)
    recompute()
  }

  /// Multiplies every stored value by `factorQ15` / 2^15 (amplitude decay while beats are overdue).
  mutating func scale(byQ15 factorQ15: Int64) {
    withUnsafeMutableBytes(of: &values) { raw in
      for i in 0..<Self.capacity {
        let offset = i * MemoryLayout<Int64>.stride
        let v = raw.load(fromByteOffset: offset, as: Int64.self)
        raw.storeBytes(of: (v &* factorQ15) >> 15, toByteOffset: offset, as: Int64.self)
      }
    }
    recompute()
  }

  mutating func removeAll() {
    next = 0
    count = 0
    median = 0
  }

  private mutating func recompute() {
    var sorted: (Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0)
    let n = count
    median = withUnsafeBytes(of: values) { source in
      withUnsafeMutableBytes(of: &sorted) { target in
        // Insertion sort of at most five values.
        for i in 0..<n {
          let v = source.load(fromByteOffset: i * 8, as: Int64.self)
          var j = i
          while j > 0 {
            let previous = target.load(fromByteOffset: (j - 1) * 8, as: Int64.self)
            if previous <= v { break }
            target.storeBytes(of: previous, toByteOffset: j * 8, as: Int64.self)
            j -= 1
          }
          target.storeBytes(of: v, toByteOffset: j * 8, as: Int64.self)
        }
        if n == 0 { return 0 }
        if n % 2 == 1 { return target.load(fromByteOffset: ((n - 1) / 2) * 8, as: Int64.self) }
        let lower = target.load(fromByteOffset: (n / 2 - 1) * 8, as: Int64.self)
        let upper = target.load(fromByteOffset: (n / 2) * 8, as: Int64.self)
        return (lower &+ upper) / 2
      }
    }
  }
}
