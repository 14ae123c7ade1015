#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
  private var fd: Int32
  private var cursor: Cursor
  private var lineNumber = 2
  private var sampleIndex = 0
  private var skipRemaining: Int
  private static let headroomLimit: Int64 = 1 << 29

  // MARK: - Initialization

  /// Opens `path`. `channels` names the columns to read (nil: the default PPG column). `skipLeadingSamples`
  /// turns that many first rows into a gap (device start-up), keeping the timeline's indices.
  public init(path: String, channels: [String]? = nil, skipLeadingSamples: Int? = nil) throws(RecordingError) {
    self.path = path
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      let code = errno
      if code == ENOENT || code == ENOTDIR { throw .notFound(path: path) }
      throw .unreadable(path: path, reason: String(cString: strerror(code)))
    }
    do {
      var cursor = Cursor()
      let sidecar = try RecordingSidecar.load(forRecording: path)
      try cursor.fill(fd: fd, path: path)
      guard let headerFields = cursor.takeLine() else { throw RecordingError.empty(path: path) }
      let names = headerFields.map { $0.trimmingQuotesAndSpaces() }
      guard names.contains(where: { !$0.isEmpty && Double($0) == nil }) else { throw RecordingError.noHeader(path: path) }
      let lowered = names.map { $0.lowercased() }
      let gapColumn = lowered.firstIndex(of: "gap")
      let wanted = try Self.chooseChannels(channels, lowered: lowered, names: names, gapColumn: gapColumn, path: path)
      self.fd = fd
      self.sidecar = sidecar
      self.header = names
      self.gapColumn = gapColumn
      self.channelColumns = wanted
      self.channelNames = wanted.map { names[$0] }
      self.skipRemaining = max(0, skipLeadingSamples ?? sidecar?.startupSamplesToSkip ?? 0)
      self.scale = Self.chooseScale(cursor.buffer, cursor.start, cursor.end, columns: wanted)
      self.cursor = cursor
    } catch let error as RecordingError {
      close(fd)
      throw error
    } catch {
      close(fd)
      throw .unreadable(path: path, reason: "\(error)")
    }
  }

  deinit { if fd >= 0 { close(fd) } }

  // MARK: - Public

  /// The next block of at most `maxSamples` contiguous samples; nil at the end of the file.
  public func nextBlock(maxSamples: Int = 1 << 16) throws(RecordingError) -> RecordingBlock? {
    var channels = [[Int32]](repeating: [], count: channelColumns.count)
    for i in channels.indices { channels[i].reserveCapacity(min(max(1, maxSamples), 1 << 16)) }
    var gapBefore = 0
    var firstIndex = sampleIndex
    var count = 0
    if let carried = carry {
      // The first row of this block was read last time: it followed a gap, so it opened a new block.
      carry = nil
      gapBefore = carried.gap
      firstIndex = carried.index
      for i in channels.indices { channels[i].append(carried.values[i]) }
      count = 1
    }
    var row = [Int64](repeating: 0, count: channelColumns.count)
    while count < maxSamples {
      if cursor.start >= cursor.end || !hasNewline() {
        if !cursor.atEOF {
          try fill()
          continue
        }
        if cursor.start >= cursor.end { break }
      }
      var gap: Int64 = 0
      guard try parseRow(into: &row, gap: &gap) else { continue }  // blank line
      let index = sampleIndex + Int(gap)
      sampleIndex = index + 1
      if skipRemaining > 0 {
        skipRemaining -= 1
        gapBefore += Int(gap) + 1
        firstIndex = sampleIndex
        continue
      }
      if gap > 0 && count > 0 {
        carry = (row.map { Int32(truncatingIfNeeded: $0) }, Int(gap), index)
        break
      }
      if count == 0 {
        gapBefore += Int(gap)
        firstIndex = index
      }
      for i in channels.indices { channels[i].append(Int32(truncatingIfNeeded: row[i])) }
      count += 1
    }
    guard count > 0 else { return nil }
    return RecordingBlock(gapBefore: gapBefore, firstSampleIndex: firstIndex, channels: channels)
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

  private var carry: (values: [Int32], gap: Int, index: Int)?

  private func hasNewline() -> Bool {
    cursor.buffer.withUnsafeBufferPointer { memchr($0.baseAddress! + cursor.start, 0x0A, cursor.end - cursor.start) != nil }
  }

  private func fill() throws(RecordingError) { try cursor.fill(fd: fd, path: path) }

  /// Parses one data row's wanted columns (and gap). Returns false for a blank line.
  private func parseRow(into row: inout [Int64], gap: inout Int64) throws(RecordingError) -> Bool {
    let line = lineNumber
    lineNumber += 1
    let end = cursor.end
    var start = cursor.start
    let result = cursor.buffer.withUnsafeBufferPointer { p in
      Self.parseLine(p.baseAddress!, &start, end, columns: channelColumns, gapColumn: gapColumn, scale: scale, into: &row, gap: &gap)
    }
    cursor.start = start
    switch result {
    case .ok: return true
    case .blank: return false
    case .bad(let column, let text):
      let name = column == gapColumn ? "gap" : header[column]
      throw .badValue(path: path, line: line, column: name, text: text)
    case .missing(let column):
      throw .badValue(path: path, line: line, column: header[column], text: "")
    case .tooLarge(let column):
      throw .outOfRange(path: path, line: line, column: header[column])
    }
  }

  enum LineResult { case ok, blank, bad(Int, String), missing(Int), tooLarge(Int) }

  /// The hot loop: walks the bytes of one line, parsing only the wanted fields as fixed-point decimals.
  private static func parseLine(
    _ base: UnsafePointer<UInt8>, _ start: inout Int, _ end: Int, columns: [Int], gapColumn: Int?, scale: Int32,
    into row: inout [Int64], gap: inout Int64
  ) -> LineResult {
    var i = start
    var field = 0
    var found = 0
    var blank = true
    let decimals = decimalDigits(of: scale)
    var result = LineResult.ok
    while i < end && base[i] != 0x0A {
      let fieldStart = i
      while i < end && base[i] != 0x2C && base[i] != 0x0A { i += 1 }
      var s = fieldStart
      var e = i
      while s < e && (base[s] == 0x20 || base[s] == 0x09 || base[s] == 0x22) { s += 1 }
      while e > s && (base[e - 1] == 0x20 || base[e - 1] == 0x09 || base[e - 1] == 0x0D || base[e - 1] == 0x22) { e -= 1 }
      if e > s { blank = false }
      let wantedAt = columns.firstIndex(of: field)
      if wantedAt != nil || field == gapColumn {
        if case .ok = result {
          if e == s && field == gapColumn {
            gap = 0
          } else if let value = parseDecimal(base, s, e, decimals: field == gapColumn ? 0 : decimals) {
            if let slot = wantedAt {
              if value > Int64(Int32.max) || value < Int64(Int32.min) { result = .tooLarge(field) }
              row[slot] = value
              found += 1
            } else {
              gap = max(0, value)
            }
          } else if e == s {
            result = .missing(field)
          } else {
            result = .bad(field, String(decoding: UnsafeBufferPointer(start: base + s, count: e - s), as: UTF8.self))
          }
        }
      }
      field += 1
      if i < end && base[i] == 0x2C { i += 1 }
    }
    start = i < end ? i + 1 : i
    if blank { return .blank }
    if case .ok = result, found < columns.count, let missing = columns.first(where: { $0 >= field }) {
      return .missing(missing)
    }
    return result
  }

  /// Parses [sign] digits [. digits] [e[sign]digits] into value × 10^decimals, rounded. nil if not a number.
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

  private static func pow10(_ n: Int) -> Double {
    var p = 1.0
    for _ in 0..<n { p *= 10 }
    return p
  }

  private static func decimalDigits(of scale: Int32) -> Int {
    var d = 0
    var s = scale
    while s >= 10 {
      s /= 10
      d += 1
    }
    return d
  }

  private static func chooseChannels(
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
  private static func chooseScale(_ buffer: [UInt8], _ start: Int, _ end: Int, columns: [Int]) -> Int32 {
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
            let text = String(decoding: UnsafeBufferPointer(start: base + fieldStart, count: last - fieldStart), as: UTF8.self)
            if let v = Double(text.trimmingQuotesAndSpaces()) { maxMagnitude = max(maxMagnitude, abs(v)) }
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
}

extension String {
  func trimmingQuotesAndSpaces() -> String {
    var s = Substring(self)
    while let f = s.first, f == " " || f == "\t" || f == "\"" || f == "\r" { s.removeFirst() }
    while let l = s.last, l == " " || l == "\t" || l == "\"" || l == "\r" { s.removeLast() }
    return String(s)
  }
}

/// The read buffer: bytes [start, end) are read but not yet parsed.
private struct Cursor {
  var buffer = [UInt8](repeating: 0, count: 1 << 21)
  var start = 0
  var end = 0
  var atEOF = false
  static let chunkSize = 1 << 20

  /// Moves the unread tail to the front and reads another chunk after it.
  mutating func fill(fd: Int32, path: String) throws(RecordingError) {
    if start > 0 {
      let tail = end - start
      if tail > 0 {
        let from = start
        buffer.withUnsafeMutableBufferPointer { p in _ = memmove(p.baseAddress!, p.baseAddress! + from, tail) }
      }
      start = 0
      end = tail
    }
    if buffer.count - end < Self.chunkSize { buffer.append(contentsOf: [UInt8](repeating: 0, count: Self.chunkSize)) }
    let space = buffer.count - end
    let offset = end
    var got = 0
    repeat {
      got = buffer.withUnsafeMutableBufferPointer { read(fd, $0.baseAddress! + offset, space) }
    } while got < 0 && errno == EINTR
    if got < 0 { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
    if got == 0 { atEOF = true }
    end += got
  }

  /// Takes the first line (the header) as comma-separated fields; nil when the file is empty.
  mutating func takeLine() -> [String]? {
    guard start < end else { return nil }
    var i = start
    while i < end && buffer[i] != 0x0A { i += 1 }
    var bytes = Array(buffer[start..<i])
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }  // UTF-8 byte-order mark
    start = min(i + 1, end)
    return String(decoding: bytes, as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
  }
}
