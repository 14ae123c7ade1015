import Platform

// The set-up of a reader (which columns, which fixed-point scale) and the field parser, apart from the hot loop.
extension RecordingReader {
  /// Parses [sign] digits [. digits] [e[sign]digits] into value × 10^decimals, rounded. nil if not a number.
  @inline(__always)
  static func parseDecimal(_ base: UnsafePointer<UInt8>, _ s: Int, _ e: Int, decimals: Int) -> Int64? {
    var i = s
    var negative = false
    if i < e && (base[i] == 0x2D || base[i] == 0x2B) {
      negative = base[i] == 0x2D
      i += 1
    }
    var mantissa: Int64 = 0
    var digits = 0
    var fraction = 0
    var overflow = false
    while i < e, base[i] >= 0x30, base[i] <= 0x39 {
      if mantissa < 100_000_000_000_000 { mantissa = mantissa * 10 + Int64(base[i] - 0x30) } else { overflow = true }
      digits += 1
      i += 1
    }
    if i < e && base[i] == 0x2E {
      i += 1
      while i < e, base[i] >= 0x30, base[i] <= 0x39 {
        if mantissa < 100_000_000_000_000 {
          mantissa = mantissa * 10 + Int64(base[i] - 0x30)
          fraction += 1
        }
        digits += 1
        i += 1
      }
    }
    guard digits > 0 else { return nil }
    if i < e {
      // Exponent or junk: take the slow path through Double.
      let text = String(decoding: UnsafeBufferPointer(start: base + s, count: e - s), as: UTF8.self)
      guard let d = Double(text), d.isFinite else { return nil }
      let scaled = (d * pow10(decimals)).rounded()
      guard abs(scaled) < 9e18 else { return Int64.max }
      return Int64(scaled)
    }
    if overflow { return negative ? Int64.min : Int64.max }
    var value = mantissa
    if fraction < decimals {
      for _ in fraction..<decimals { value = value.multipliedReportingOverflow(by: 10).partialValue }
    } else if fraction > decimals {
      var divisor: Int64 = 1
      for _ in decimals..<fraction { divisor *= 10 }
      value = (value + divisor / 2) / divisor
    }
    return negative ? -value : value
  }

  /// The common line, read in one pass: `[-]digits[.digits]` then `\n`, `\r\n` or the region's end, at most 15
  /// digits and at most `decimals` of them after the point. Returns the value × 10^decimals and where the next
  /// line starts; nil for anything else (padding, a comma, an exponent, a blank line, rounding), which the caller
  /// re-reads the general way, so both give the same value.
  @inline(__always)
  static func parsePlainLine(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, decimals: Int) -> (Int64, Int)? {
    guard let (value, i) = parsePlainField(base, start, end, decimals: decimals) else { return nil }
    var next = i
    if i < end {
      if base[i] == 0x0A {
        next = i + 1
      } else if base[i] == 0x0D && i + 1 < end && base[i + 1] == 0x0A {
        next = i + 2
      } else {
        return nil
      }
    }
    return (value, next)
  }

  /// A plain field, `[-]digits[.digits]` with at most 15 digits and at most `decimals` after the point: the value ×
  /// 10^decimals (exactly what `parseDecimal` gives for it) and the index of the byte after it; nil for anything
  /// else, which the caller re-reads the general way.
  @inline(__always)
  static func parsePlainField(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, decimals: Int) -> (Int64, Int)? {
    var i = start
    let negative = i < end && base[i] == 0x2D
    if negative { i += 1 }
    var mantissa: Int64 = 0
    var digits = takeDigits(base, &i, end, into: &mantissa)
    var fraction = 0
    if i < end && base[i] == 0x2E {
      i += 1
      fraction = takeDigits(base, &i, end, into: &mantissa)
      digits += fraction
    }
    guard digits > 0, digits <= 15, fraction <= decimals, digits - fraction + decimals <= 18 else { return nil }
    var value = mantissa
    for _ in fraction..<decimals { value &*= 10 }
    return (negative ? -value : value, i)
  }

  /// A row of plain fields separated by commas and ended by `\n` or `\r\n`: each wanted column's value into
  /// `row[slot]`, a `gap` field that must be 0, the other columns skipped unread (as the general parser skips them).
  /// After field `lastUsed` (the last one read) the rest of the line is skipped to its newline, as the general parser
  /// skips fields not asked for and fields past the header. Returns where the next row starts; nil for anything else
  /// (padding, quotes, a missing field, a gap, a value past Int32, the region's end), which the caller re-reads the
  /// general way, so both give the same values and the same errors.
  @inline(__always)
  static func parsePlainRow(
    _ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, slots: UnsafeBufferPointer<Int8>, lastUsed: Int,
    decimals: Int, into row: UnsafeMutablePointer<Int32>
  ) -> Int? {
    var i = start
    let last = lastUsed
    var f = 0
    while true {
      let slot = slots[f]
      if slot == ignoredSlot {
        i = fieldEnd(base, i, end)
      } else {
        var value: Int64
        if decimals == 0, end &- i >= 8, let (count, digits) = shortCount(base, i) {
          value = Int64(digits)
          i &+= count
        } else {
          guard let (parsed, next) = parsePlainField(base, i, end, decimals: decimals) else { return nil }
          value = parsed
          i = next
        }
        if slot == gapSlot {
          guard value == 0 else { return nil }
        } else {
          guard value <= Int64(Int32.max) && value >= Int64(Int32.min) else { return nil }
          row[Int(slot)] = Int32(truncatingIfNeeded: value)
        }
      }
      guard i < end else { return nil }
      if f < last {
        guard base[i] == 0x2C else { return nil }
        i &+= 1
        f &+= 1
        continue
      }
      if base[i] == 0x0A { return i &+ 1 }
      if base[i] == 0x0D && i &+ 1 < end && base[i &+ 1] == 0x0A { return i &+ 2 }
      guard base[i] == 0x2C && last < slots.count &- 1 else { return nil }
      let newline = lineEnd(base, i &+ 1, end)
      return newline < end ? newline &+ 1 : nil
    }
  }

  /// The first newline at or after `start` (or `end`), eight bytes at a time while eight remain (as `fieldEnd`).
  @inline(__always)
  static func lineEnd(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    var i = start
    let ones: UInt64 = 0x0101_0101_0101_0101
    while end &- i >= 8 {
      let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) ^ (ones &* 0x0A)
      let found = (word &- ones) & ~word & 0x8080_8080_8080_8080
      if found != 0 { return i &+ (found.trailingZeroBitCount &>> 3) }
      i &+= 8
    }
    while i < end && base[i] != 0x0A { i &+= 1 }
    return i
  }

  /// The first comma or newline at or after `start` (or `end`): where a field not asked for ends. Eight bytes at a time
  /// while eight remain in the region: a byte equal to the one sought becomes zero, and the lowest zero byte is found
  /// exactly (a borrow only marks bytes above the first zero, never below it).
  @inline(__always)
  static func fieldEnd(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    var i = start
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    while end &- i >= 8 {
      let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
      let commas = word ^ (ones &* 0x2C)
      let newlines = word ^ (ones &* 0x0A)
      let found = ((commas &- ones) & ~commas | (newlines &- ones) & ~newlines) & highs
      if found != 0 { return i &+ (found.trailingZeroBitCount &>> 3) }
      i &+= 8
    }
    while i < end && base[i] != 0x2C && base[i] != 0x0A { i &+= 1 }
    return i
  }

  /// The digits (one to seven) at `start`, read as one 8-byte word: how many and their value; nil when there is no
  /// digit or eight. The byte after them is the caller's to judge. The caller makes sure the eight bytes from `start`
  /// lie in the parsed region.
  @inline(__always)
  static func shortCount(_ base: UnsafePointer<UInt8>, _ start: Int) -> (Int, UInt32)? {
    let word = UInt64(littleEndian: UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self))
    // A byte is a digit when its high nibble is 3 both as it is and plus 6 (0x30–0x39). Adding 6 can carry out of
    // a byte ≥ 0xFA only, which is already past the first non-digit, so the bytes before it are judged exactly.
    let tens = word & 0xF0F0_F0F0_F0F0_F0F0
    let bumped = (word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0
    let nonDigits = (tens ^ 0x3030_3030_3030_3030) | (bumped ^ 0x3030_3030_3030_3030)
    let count = nonDigits.trailingZeroBitCount &>> 3  // digits before the first other byte; 8 when there is none
    guard count >= 1 && count <= 7 else { return nil }
    // The digits moved to the top bytes, zeros (leading zeros) below them, then combined in pairs, fours, eights.
    var v = (word & 0x0F0F_0F0F_0F0F_0F0F) &<< UInt64((8 &- count) &<< 3)
    v = v &* 10 &+ (v &>> 8)
    // Each even byte now holds a pair (0–99); weighted by its power of 100, their sum lands in the high 32 bits.
    let pairs: UInt64 = 0x0000_00FF_0000_00FF
    v = ((v & pairs) &* 0x000F_4240_0000_0064 &+ ((v &>> 16) & pairs) &* 0x0000_2710_0000_0001) &>> 32
    return (count, UInt32(truncatingIfNeeded: v))
  }

  /// A raw count's line, `digits` (one to seven) then `\n` or `\r\n`, read as one 8-byte word: the value and where
  /// the next line starts; nil for anything else, a line longer than the word included, which `parsePlainLine`
  /// reads. The caller makes sure the eight bytes from `start` lie in the parsed region.
  @inline(__always)
  static func parseShortCountLine(_ base: UnsafePointer<UInt8>, _ start: Int) -> (Int32, Int)? {
    guard let (count, value) = shortCount(base, start) else { return nil }
    let stop = base[start &+ count]
    var next = start &+ count &+ 1
    if stop != 0x0A {
      guard stop == 0x0D && count <= 6 && base[start &+ count &+ 1] == 0x0A else { return nil }
      next &+= 1
    }
    return (Int32(truncatingIfNeeded: value), next)
  }

  /// Appends the decimal digits from `i` on to `mantissa` (wrapping: the caller bounds the count); returns how many.
  @inline(__always)
  private static func takeDigits(_ base: UnsafePointer<UInt8>, _ i: inout Int, _ end: Int, into mantissa: inout Int64) -> Int {
    let start = i
    while i < end {
      let digit = base[i] &- 0x30
      if digit > 9 { break }
      mantissa = mantissa &* 10 &+ Int64(digit)
      i += 1
    }
    return i - start
  }

  static func pow10(_ n: Int) -> Double {
    var p = 1.0
    for _ in 0..<n { p *= 10 }
    return p
  }

  static func decimalDigits(of scale: Int32) -> Int {
    var d = 0
    var s = scale
    while s >= 10 {
      s /= 10
      d += 1
    }
    return d
  }

  static func chooseChannels(
    _ requested: [String]?, lowered: [String], names: [String], gapColumn: Int?, path: String
  ) throws(RecordingError) -> [Int] {
    if let requested {
      var indices: [Int] = []
      for name in requested {
        guard let index = lowered.firstIndex(of: name.lowercased()) else {
          throw .noSuchColumn(path: path, wanted: name, available: names)
        }
        indices.append(index)
      }
      return indices
    }
    if let ppg = lowered.firstIndex(of: "ppg") { return [ppg] }
    if let ir = lowered.firstIndex(of: "ir") { return [ir] }
    let data = names.indices.filter { $0 != gapColumn }
    if data.count == 1 { return data }
    throw .noNumericColumn(path: path, available: names)
  }

  /// Looks at up to 4096 early rows: most decimals seen, largest magnitude → the fixed-point scale.
  static func chooseScale(_ buffer: [UInt8], _ start: Int, _ end: Int, columns: [Int]) -> Int32 {
    var maxDecimals = 0
    var maxMagnitude = 0.0
    var rows = 0
    var field = 0
    var i = start
    var fieldStart = i
    buffer.withUnsafeBufferPointer { p in
      let base = p.baseAddress!
      while i <= end && rows < 4096 {
        let atEnd = i == end || base[i] == 0x0A || base[i] == 0x2C
        if atEnd {
          if columns.contains(field) {
            var dot = -1
            for k in fieldStart..<i where base[k] == 0x2E { dot = k }
            var last = i
            while last > fieldStart && (base[last - 1] == 0x0D || base[last - 1] == 0x20 || base[last - 1] == 0x22) { last -= 1 }
            if dot >= 0 { maxDecimals = max(maxDecimals, last - dot - 1) }
            if let v = magnitude(base, fieldStart, last) { maxMagnitude = max(maxMagnitude, v) }
          }
          if i == end || base[i] == 0x0A {
            rows += 1
            field = 0
          } else {
            field += 1
          }
          fieldStart = i + 1
        }
        i += 1
      }
    }
    var decimals = min(6, maxDecimals)
    while decimals > 0 && maxMagnitude * pow10(decimals) >= Double(headroomLimit) { decimals -= 1 }
    var scale: Int32 = 1
    for _ in 0..<decimals { scale *= 10 }
    return scale
  }

  /// |value| of the field in bytes [start, end) with spaces, tabs, quotes and CRs around it; nil if it is not a number.
  /// Plain decimals (`-12.345`, the whole of a recording) are read from the bytes, exactly as `Double(String)` would
  /// round them; anything else (exponents, `nan`, very long digit strings) goes through `Double(String)`.
  static func magnitude(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
    func padding(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x22 || byte == 0x0D }
    var lo = start
    var hi = end
    while lo < hi && padding(base[lo]) { lo += 1 }
    while hi > lo && padding(base[hi - 1]) { hi -= 1 }
    var i = lo
    if i < hi && (base[i] == 0x2D || base[i] == 0x2B) { i += 1 }
    var mantissa: UInt64 = 0
    var integerDigits = 0
    var fractionDigits = 0
    var seenDot = false
    var plain = i < hi
    while i < hi {
      let byte = base[i]
      if byte >= 0x30 && byte <= 0x39 {
        guard mantissa < 1 << 49 else { plain = false; break }  // stays exact in a Double after one more digit
        mantissa = mantissa * 10 + UInt64(byte - 0x30)
        if seenDot { fractionDigits += 1 } else { integerDigits += 1 }
      } else if byte == 0x2E && !seenDot {
        seenDot = true
      } else {
        plain = false
        break
      }
      i += 1
    }
    if plain && integerDigits > 0 && fractionDigits <= 22 {
      // Both operands are exact Doubles, so the quotient is the correctly rounded value, as the parser gives.
      return Double(mantissa) / pow10(fractionDigits)
    }
    let text = String(decoding: UnsafeBufferPointer(start: base + lo, count: hi - lo), as: UTF8.self)
    return Double(text).map(abs)
  }
}
