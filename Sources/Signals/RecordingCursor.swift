import Platform

// The reader's buffer over the file and the header's trimming, apart from the parsers (RecordingReader+Fields.swift).

/// The read buffer: bytes [start, end) are read but not yet parsed.
struct Cursor {
  var buffer: [UInt8]
  var start = 0
  var end = 0
  var atEOF = false
  /// Bytes asked of each read(): 1 MiB, or the whole file when it is smaller (a short recording then costs no
  /// 2 MiB buffer to clear and fault in).
  let chunkSize: Int

  /// `fileBytes`: the file's size when known (a regular file), nil for a pipe or a device.
  init(fileBytes: Int?) {
    chunkSize = min(1 << 20, max(4_096, (fileBytes ?? Int.max - 1) + 1))
    buffer = [UInt8](repeating: 0, count: 2 * chunkSize)
  }

  /// Moves the unread tail to the front and reads another chunk after it.
  mutating func fill(_ file: FileDescriptor, path: String) throws(RecordingError) {
    if start > 0 {
      let tail = end - start
      if tail > 0 {
        let from = start
        buffer.withUnsafeMutableBufferPointer { p in _ = memmove(p.baseAddress!, p.baseAddress! + from, tail) }
      }
      start = 0
      end = tail
    }
    if buffer.count - end < chunkSize { buffer.append(contentsOf: [UInt8](repeating: 0, count: chunkSize)) }
    let space = buffer.count - end
    let offset = end
    let got: Int
    do {
      got = try buffer.withUnsafeMutableBufferPointer { all throws(Errno) in
        let window = UnsafeMutableBufferPointer(rebasing: all[offset..<(offset + space)])
        return try file.read(into: UnsafeMutableRawBufferPointer(window))
      }
    } catch {
      throw .unreadable(path: path, reason: error.description)
    }
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

extension String {
  func trimmingQuotesAndSpaces() -> String {
    var s = Substring(self)
    while let f = s.first, f == " " || f == "\t" || f == "\"" || f == "\r" { s.removeFirst() }
    while let l = s.last, l == " " || l == "\t" || l == "\"" || l == "\r" { s.removeLast() }
    return String(s)
  }
}

