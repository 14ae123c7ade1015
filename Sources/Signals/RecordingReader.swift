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
  /// Plain rows' values gathered before they join a block's rows, `laneCapacity` rows at a time.
  private let lane: UnsafeMutablePointer<Int32>
  static let laneCapacity = 4_096
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
      let known = fstat(file.rawValue, &status) == 0
      if known && (status.st_mode & S_IFMT) == S_IFDIR { throw RecordingError.isDirectory(path: path) }
      let regular = known && (status.st_mode & S_IFMT) == S_IFREG
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
      self.lane = .allocate(capacity: Self.laneCapacity * max(1, wanted.count))
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
}
