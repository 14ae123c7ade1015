import Platform

/// Streams a PPG recording (CSV with a header row) as blocks of integer samples, without loading the file.
///
/// Format: comma-separated, one sample per row, a header naming the columns. The channel is `--column`, else
/// `ppg`, else `ir`, else the only data column. An optional `gap` column holds the number of samples lost just
/// before that row (written by `stressmon record` on FIFO overflow); blocks break there.
///
/// Values may be integers (raw sensor counts) or decimals (conditioned BVP). They become `Int32` multiplied by
/// `scale` = 10^d, d chosen from the first rows as the most decimals seen (at most 6), reduced until the largest
/// early value times `scale` stays below 2^29, leaving headroom for later excursions.
public final class RecordingReader {
  // MARK: - Properties

  public let path: String
  public let header: [String]
  public let channelNames: [String]
  public let scale: Int32
  public let sidecar: RecordingSidecar?

  private let channelColumns: [Int]
  private let gapColumn: Int?
  private let file: FileDescriptor
  private var cursor: Cursor
  private var lineNumber = 2
  private var sampleIndex = 0
  private var skipRemaining: Int
  static let headroomLimit: Int64 = 1 << 29
  /// Hot-path tables, built once: the slot of each header field and the decimals of `scale`.
  private let slotOfField: [Int8]
  private let decimals: Int
  private let rowScratch: UnsafeMutablePointer<Int64>
  /// Plain single-column values gathered before they join a block's rows, `laneCapacity` at a time.
  private let lane: UnsafeMutablePointer<Int32>
  private static let laneCapacity = 4_096
  /// For each channel, the first channel reading the same column; nil when no column is asked for twice.
  private let duplicateSources: [Int]?

  // MARK: - Initialization

  /// Opens `path`. `channels` names the columns to read (nil: the default PPG column). `skipLeadingSamples`
  /// turns that many first rows into a gap (device start-up), keeping the timeline's indices. `readSidecar:
  /// false` ignores the sidecar beside the file (the caller has everything it would give).
  public init(
    path: String, channels: [String]? = nil, skipLeadingSamples: Int? = nil, readSidecar: Bool = true
  ) throws(RecordingError) {
    self.path = path
    let file: FileDescriptor
    do {
      file = try FileDescriptor.open(path, .readOnly)
    } catch {
      if error.rawValue == ENOENT || error.rawValue == ENOTDIR { throw .notFound(path: path) }
      throw .unreadable(path: path, reason: error.description)
    }
    do {
      var status = stat()
      let regular = fstat(file.rawValue, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
      var cursor = Cursor(fileBytes: regular ? Int(status.st_size) : nil)
      let sidecar = readSidecar ? try RecordingSidecar.load(forRecording: path) : nil
      try cursor.fill(file, path: path)
      guard let headerFields = cursor.takeLine() else { throw RecordingError.empty(path: path) }
      let names = headerFields.map { $0.trimmingQuotesAndSpaces() }
      guard names.contains(where: { !$0.isEmpty && Double($0) == nil }) else { throw RecordingError.noHeader(path: path) }
      let lowered = names.map { $0.lowercased() }
      let gapColumn = lowered.firstIndex(of: "gap")
      let wanted = try Self.chooseChannels(channels, lowered: lowered, names: names, gapColumn: gapColumn, path: path)
      self.file = file
      self.sidecar = sidecar
      self.header = names
      self.gapColumn = gapColumn
      self.channelColumns = wanted
      self.channelNames = wanted.map { names[$0] }
      self.skipRemaining = max(0, skipLeadingSamples ?? sidecar?.startupSamplesToSkip ?? 0)
      self.scale = Self.chooseScale(cursor.buffer, cursor.start, cursor.end, columns: wanted)
      self.cursor = cursor
      var slots = [Int8](repeating: Self.ignoredSlot, count: names.count)
      if let gapColumn { slots[gapColumn] = Self.gapSlot }
      for (slot, column) in wanted.enumerated().reversed() { slots[column] = Int8(clamping: slot) }
      self.slotOfField = slots
      self.decimals = Self.decimalDigits(of: self.scale)
      self.rowScratch = .allocate(capacity: max(1, wanted.count))
      self.lane = .allocate(capacity: Self.laneCapacity)
      let sources = wanted.map { column in wanted.firstIndex(of: column)! }
      self.duplicateSources = sources == Array(wanted.indices) ? nil : sources
    } catch let error as RecordingError {
      try? file.close()
      throw error
    } catch {
      try? file.close()
      throw .unreadable(path: path, reason: "\(error)")
    }
  }

  deinit {
    try? file.close()
    rowScratch.deallocate()
    lane.deallocate()
  }

  // MARK: - Public

  /// The next block of at most `maxSamples` contiguous samples; nil at the end of the file.
  public func nextBlock(maxSamples: Int = 1 << 16) throws(RecordingError) -> RecordingBlock? {
    let limit = max(1, maxSamples)
    let width = channelColumns.count
    var state = RowState(lineNumber: lineNumber, sampleIndex: sampleIndex, skipRemaining: skipRemaining)
    state.firstIndex = sampleIndex
    // Rows interleaved (row-major) while parsing; split into channels at the end.
    var rows: [Int32] = []
    rows.reserveCapacity(min(limit, 1 << 16) * width)
    if let carried = carry {
      // The first row of this block was read last time: it followed a gap, so it opened a new block.
      carry = nil
      state.gapBefore = carried.gap
      state.firstIndex = carried.index
      rows.append(contentsOf: carried.values)
      state.count = 1
    }
    while state.count < limit && state.carry == nil {
      if cursor.start >= cursor.end {
        if cursor.atEOF { break }
        try fill()
        continue
      }
      // Parse the complete lines in the buffer (all of it at the end of the file) in one pass.
      let regionEnd = cursor.atEOF ? cursor.end : lastLineEnd()
      if regionEnd <= cursor.start {
        try fill()
        continue
      }
      var position = cursor.start
      let failure = cursor.buffer.withUnsafeBufferPointer { buffer in
        slotOfField.withUnsafeBufferPointer { slots in
          Self.parseRows(
            buffer.baseAddress!, &position, regionEnd, slots: slots, width: width, decimals: decimals,
            limit: limit, state: &state, rows: &rows, row: rowScratch, lane: lane, sources: duplicateSources)
        }
      }
      cursor.start = position
      if let failure {
        lineNumber = state.lineNumber
        throw error(for: failure)
      }
    }
    lineNumber = state.lineNumber
    sampleIndex = state.sampleIndex
    skipRemaining = state.skipRemaining
    if let next = state.carry { carry = next }
    guard state.count > 0 else {
      // A header and nothing else (or only start-up rows) is not a recording: say so rather than analyse nothing.
      if !deliveredSamples { throw .empty(path: path) }
      return nil
    }
    deliveredSamples = true
    var channels = [[Int32]](repeating: [], count: width)
    if width == 1 {
      channels[0] = rows
    } else {
      for c in 0..<width {
        channels[c].reserveCapacity(state.count)
        for r in 0..<state.count { channels[c].append(rows[r * width + c]) }
      }
    }
    return RecordingBlock(gapBefore: state.gapBefore, firstSampleIndex: state.firstIndex, channels: channels)
  }

  /// Every block of the file, for whole-file analysis and tests.
  public func readAll() throws(RecordingError) -> [RecordingBlock] {
    var blocks: [RecordingBlock] = []
    while let block = try nextBlock() { blocks.append(block) }
    return blocks
  }

  /// Converts a scaled sample back to the file's units.
  public func fileValue(_ sample: Int32) -> Double { Double(sample) / Double(scale) }

  // MARK: - Private

  /// Whether any block has been returned yet (an empty file is an error, the end of a full one is not).
  private var deliveredSamples = false
  private var carry: (values: [Int32], gap: Int, index: Int)?

  /// One past the last newline in the unread bytes (the end of the last complete line), or `cursor.start`
  /// when there is none.
  private func lastLineEnd() -> Int {
    cursor.buffer.withUnsafeBufferPointer { p in
      var i = cursor.end
      while i > cursor.start && p[i - 1] != 0x0A { i -= 1 }
      return i
    }
  }

  private func fill() throws(RecordingError) { try cursor.fill(file, path: path) }

  private func error(for failure: RowFailure) -> RecordingError {
    switch failure.kind {
    case .bad(let text):
      let name = failure.column == gapColumn ? "gap" : header[failure.column]
      return .badValue(path: path, line: failure.line, column: name, text: text)
    case .missing:
      return .badValue(path: path, line: failure.line, column: header[failure.column], text: "")
    case .tooLarge:
      return .outOfRange(path: path, line: failure.line, column: header[failure.column])
    }
  }

  /// Where the parse of a block stands; copied in and out so the hot loop touches no class properties.
  private struct RowState {
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

  private struct RowFailure {
    enum Kind { case bad(String), missing, tooLarge }
    var kind: Kind
    var line: Int
    var column: Int
  }

  /// Slot of each header field: ≥ 0 a wanted channel, `gapSlot` the gap column, `ignoredSlot` otherwise.
  private static let gapSlot: Int8 = -2
  private static let ignoredSlot: Int8 = -1

  /// The hot loop: parses the rows in [position, end) (complete lines), applying gaps, the start-up skip and
  /// the block limit, until the limit, a gap that must open a new block, or an error. Failures are kept as
  /// plain integers inside the loop (a String-carrying optional there costs a third of the time).
  private static func parseRows(
    _ base: UnsafePointer<UInt8>, _ position: inout Int, _ end: Int, slots: UnsafeBufferPointer<Int8>, width: Int,
    decimals: Int, limit: Int, state: inout RowState, rows: inout [Int32], row: UnsafeMutablePointer<Int64>,
    lane: UnsafeMutablePointer<Int32>,
    sources: [Int]?
  ) -> RowFailure? {
    let distinct = sources.map { Set($0).count } ?? width
    let singleColumn = slots.count == 1 && width == 1 && slots[0] == 0
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
