// Medians without sorting: the IBI cleaner's streaming decisions (in place, nothing allocated per beat) and the
// HRV windows' medians.
extension Statistics {
  /// The median of `buffer[0..<count]`, reordering that part in place, without allocating (for the few dozen values
  /// of a streaming decision). A few values are insertion-sorted; more are partitioned around the middle (Hoare's
  /// selection), which takes a sixty-value spread in a fifth of the work of sorting it. Nil when `count` is 0.
  static func medianInPlace(_ buffer: inout [Double], count: Int) -> Double? {
    guard count > 0, count <= buffer.count else { return nil }
    let (lower, upper) = buffer.withUnsafeMutableBufferPointer { middleValues($0, count: count) }
    return count % 2 == 1 ? upper : (lower + upper) / 2
  }

  /// The two middle values of `values[0..<count]` (the same one twice when `count` is odd), reordering them.
  static func middleValues(_ values: UnsafeMutableBufferPointer<Double>, count: Int) -> (Double, Double) {
    let middle = count / 2
    if count <= 12 {
      insertionSort(values, count: count)
      return (values[count % 2 == 1 ? middle : middle - 1], values[middle])
    }
    select(middle, in: values, count: count)
    guard count % 2 == 0 else { return (values[middle], values[middle]) }
    // Everything before the middle is no greater than it: the lower middle is the largest of them.
    var lower = values[0]
    for i in 1..<middle where values[i] > lower { lower = values[i] }
    return (lower, values[middle])
  }

  private static func insertionSort(_ values: UnsafeMutableBufferPointer<Double>, count: Int) {
    for i in 1..<max(1, count) {
      let value = values[i]
      var j = i - 1
      while j >= 0 && values[j] > value {
        values[j + 1] = values[j]
        j -= 1
      }
      values[j + 1] = value
    }
  }

  /// Reorders `values[0..<count]` so that `values[k]` is the k-th smallest, with none greater before it and
  /// none smaller after it.
  private static func select(_ k: Int, in values: UnsafeMutableBufferPointer<Double>, count: Int) {
    var low = 0
    var high = count - 1
    while high > low {
      // The median of three as the pivot keeps sorted and reversed runs linear.
      let mid = low + (high - low) / 2
      if values[mid] < values[low] { values.swapAt(mid, low) }
      if values[high] < values[low] { values.swapAt(high, low) }
      if values[high] < values[mid] { values.swapAt(high, mid) }
      let pivot = values[mid]
      var i = low
      var j = high
      while i <= j {
        while values[i] < pivot { i += 1 }
        while values[j] > pivot { j -= 1 }
        if i <= j {
          values.swapAt(i, j)
          i += 1
          j -= 1
        }
      }
      if k <= j {
        high = j
      } else if k >= i {
        low = i
      } else {
        return
      }
    }
  }
}
