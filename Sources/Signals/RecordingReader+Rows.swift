// The reader's hot loop: rows parsed from the read buffer into a block, the state it carries between calls and the
// failures it reports. RecordingReader.swift holds the file, the buffer and the blocks; RecordingReader+Fields.swift
// the set-up and the field parsers.
extension RecordingReader {
  /// Where the parse of a block stands; copied in and out so the hot loop touches no class properties.
  struct RowState {
    var lineNumber: Int
    var sampleIndex: Int
    var skipRemaining: Int
    var count = 0
    var gapBefore = 0
    var firstIndex = 0
    var carry: (values: [Int32], gap: Int, index: Int)?

    init(lineNumber: Int, sampleIndex: Int, skipRemaining: Int) {
      self.lineNumber = lineNumber
      self.sampleIndex = sampleIndex
      self.skipRemaining = skipRemaining
    }
  }

  struct RowFailure {
    enum Kind { case bad(String), missing, tooLarge }
    var kind: Kind
    var line: Int
    var column: Int
  }

  /// Slot of each header field: ≥ 0 a wanted channel, `gapSlot` the gap column, `ignoredSlot` otherwise.
  static let gapSlot: Int8 = -2
  static let ignoredSlot: Int8 = -1

  /// The hot loop: parses the rows in [position, end) (complete lines), applying gaps, the start-up skip and
  /// the block limit, until the limit, a gap that must open a new block, or an error. Failures are kept as
  /// plain integers inside the loop (a String-carrying optional there costs a third of the time).
  static func parseRows(
    _ base: UnsafePointer<UInt8>, _ position: inout Int, _ end: Int, slots: UnsafeBufferPointer<Int8>, width: Int,
    decimals: Int, limit: Int, state: inout RowState, rows: inout [Int32], row: UnsafeMutablePointer<Int64>,
    lane: UnsafeMutablePointer<Int32>,
    sources: [Int]?
  ) -> RowFailure? {
    let distinct = sources.map { Set($0).count } ?? width
    let singleColumn = slots.count == 1 && width == 1 && slots[0] == 0
    let lastUsed = slots.lastIndex { $0 != ignoredSlot } ?? 0
    var i = position
    defer { position = i }
    while i < end && state.count < limit {
      if singleColumn && state.skipRemaining == 0 {
        // The lane: a run of plain lines with no gap, gathered and appended at once.
        let most = min(limit - state.count, laneCapacity)
        var n = 0
        while n < most && i < end {
          if decimals == 0 {
            // Raw counts, the sensor's own files: a line per 8-byte word while eight bytes remain.
            while n < most, end &- i >= 8, let (value, next) = parseShortCountLine(base, i) {
              lane[n] = value
              n &+= 1
              i = next
            }
            if n == most || i == end { break }
          }
          guard let (value, next) = parsePlainLine(base, i, end, decimals: decimals),
            value <= Int64(Int32.max), value >= Int64(Int32.min)
          else { break }
          lane[n] = Int32(truncatingIfNeeded: value)
          n += 1
          i = next
        }
        if n > 0 {
          rows.append(contentsOf: UnsafeBufferPointer(start: lane, count: n))
          if state.count == 0 { state.firstIndex = state.sampleIndex }
          state.count += n
          state.sampleIndex += n
          state.lineNumber += n
          continue
        }
      }
      if !singleColumn && state.skipRemaining == 0 {
        // The lane for rows of several columns (the sensor's own `ir,red,gap`): plain fields, no gap, appended at once.
        let most = min(limit - state.count, laneCapacity)
        var n = 0
        while n < most && i < end {
          let row = lane + n &* width
          guard let next = parsePlainRow(base, i, end, slots: slots, lastUsed: lastUsed, decimals: decimals, into: row)
          else { break }
          if let sources {
            for c in 0..<width where sources[c] != c { row[c] = row[sources[c]] }
          }
          n &+= 1
          i = next
        }
        if n > 0 {
          rows.append(contentsOf: UnsafeBufferPointer(start: lane, count: n * width))
          if state.count == 0 { state.firstIndex = state.sampleIndex }
          state.count += n
          state.sampleIndex += n
          state.lineNumber += n
          continue
        }
      }
      let line = state.lineNumber
      state.lineNumber += 1
      var field = 0
      var found = 0
      var blank = true
      var gap: Int64 = 0
      // 0 ok, 1 bad value, 2 missing, 3 too large; the field and its trimmed bytes.
      var failure = 0
      var failedField = 0
      var failedStart = 0
      var failedEnd = 0
      if singleColumn {
        // One column, no gap: the whole line is the value (the common case, taken without the field loop).
        let lineStart = i
        while i < end && base[i] != 0x0A { i += 1 }
        var s = lineStart
        var e = i
        if i < end { i += 1 }
        while s < e && (base[s] == 0x20 || base[s] == 0x09 || base[s] == 0x22) { s += 1 }
        while e > s && (base[e - 1] == 0x20 || base[e - 1] == 0x09 || base[e - 1] == 0x0D || base[e - 1] == 0x22) {
          e -= 1
        }
        if e == s { continue }
        var hasComma = false
        for k in s..<e where base[k] == 0x2C { hasComma = true }
        if !hasComma {
          guard let value = parseDecimal(base, s, e, decimals: decimals) else {
            return RowFailure(kind: .bad(String(decoding: UnsafeBufferPointer(start: base + s, count: e - s), as: UTF8.self)), line: line, column: 0)
          }
          if value > Int64(Int32.max) || value < Int64(Int32.min) {
            return RowFailure(kind: .tooLarge, line: line, column: 0)
          }
          row[0] = value
          found = 1
        } else {
          // Extra fields beyond the header: re-parse this line the general way.
          i = lineStart
        }
      }
      if found == 0 {
        for c in 0..<width { row[c] = Int64.min }
        while true {
          let fieldStart = i
          while i < end && base[i] != 0x2C && base[i] != 0x0A { i += 1 }
          let slot = field < slots.count ? slots[field] : ignoredSlot
          if slot != ignoredSlot || blank {
            var s = fieldStart
            var e = i
            while s < e && (base[s] == 0x20 || base[s] == 0x09 || base[s] == 0x22) { s += 1 }
            while e > s && (base[e - 1] == 0x20 || base[e - 1] == 0x09 || base[e - 1] == 0x0D || base[e - 1] == 0x22) {
              e -= 1
            }
            if e > s { blank = false }
            if slot != ignoredSlot && failure == 0 {
              if e == s && slot == gapSlot {
                gap = 0
              } else if let value = parseDecimal(base, s, e, decimals: slot == gapSlot ? 0 : decimals) {
                if slot == gapSlot {
                  gap = max(0, value)
                } else {
                  if value > Int64(Int32.max) || value < Int64(Int32.min) {
                    failure = 3
                    failedField = field
                  }
                  if row[Int(slot)] == Int64.min { found += 1 }
                  row[Int(slot)] = value
                }
              } else {
                failure = e == s ? 2 : 1
                failedField = field
                failedStart = s
                failedEnd = e
              }
            }
          }
          field += 1
          if i < end && base[i] == 0x2C {
            i += 1
            continue
          }
          break
        }
        if i < end { i += 1 }  // the newline
        if blank { continue }
        switch failure {
        case 1:
          let text = String(decoding: UnsafeBufferPointer(start: base + failedStart, count: failedEnd - failedStart), as: UTF8.self)
          return RowFailure(kind: .bad(text), line: line, column: failedField)
        case 2: return RowFailure(kind: .missing, line: line, column: failedField)
        case 3: return RowFailure(kind: .tooLarge, line: line, column: failedField)
        default: break
        }
        if found < distinct {
          // A wanted column beyond the row's last field.
          for f in field..<slots.count where slots[f] >= 0 {
            return RowFailure(kind: .missing, line: line, column: f)
          }
        }
        if let sources {
          // The same column asked for twice: copy it.
          for c in 0..<width where sources[c] != c { row[c] = row[sources[c]] }
        }
      }
      let index = state.sampleIndex + Int(gap)
      state.sampleIndex = index + 1
      if state.skipRemaining > 0 {
        state.skipRemaining -= 1
        state.gapBefore += Int(gap) + 1
        state.firstIndex = state.sampleIndex
        continue
      }
      if gap > 0 && state.count > 0 {
        state.carry = ((0..<width).map { Int32(truncatingIfNeeded: row[$0]) }, Int(gap), index)
        return nil
      }
      if state.count == 0 {
        state.gapBefore += Int(gap)
        state.firstIndex = index
      }
      for c in 0..<width { rows.append(Int32(truncatingIfNeeded: row[c])) }
      state.count += 1
    }
    return nil
  }
}
