/// A file on the host, through semihosting (the C side in Embedded/Support/semihosting.c).
struct HostFile {
  let handle: Int32

  /// Opens `path` (bytes, no terminator) for reading or writing.
  init?(path: [UInt8], write: Bool) {
    let mode = write ? Int32(FW_MODE_WRITE_BINARY) : Int32(FW_MODE_READ_BINARY)
    let opened = (path + [0]).withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { fw_open($0.baseAddress, mode) }
    }
    guard opened >= 0 else { return nil }
    handle = opened
  }

  /// Fills `buffer` completely; false at the end of the file.
  func read(into buffer: UnsafeMutableRawBufferPointer) -> Bool {
    var done = 0
    while done < buffer.count {
      let got = fw_read(handle, buffer.baseAddress! + done, buffer.count - done)
      if got <= 0 { return false }
      done += got
    }
    return true
  }

  func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
    bytes.isEmpty || fw_write(handle, bytes.baseAddress, bytes.count) == 0
  }

  func close() { fw_close(handle) }

  /// The words of the semihosting command line (QEMU's `-semihosting-config arg=...`), as bytes: the firmware
  /// keeps clear of String comparison, which would link the Unicode normalisation tables.
  static func arguments() -> [[UInt8]] {
    var buffer = [UInt8](repeating: 0, count: 1024)
    let length = buffer.withUnsafeMutableBufferPointer { pointer in
      pointer.withMemoryRebound(to: CChar.self) { fw_command_line($0.baseAddress, $0.count) }
    }
    guard length > 0 else { return [] }
    return buffer[0..<length].split(separator: UInt8(ascii: " ")).map { Array($0) }
  }
}

/// What the host test writes for the firmware (little-endian; Tests/EmbeddedTests/FirmwareInput.swift writes it):
/// a 40-byte header ("SMQ1", polarity 0 normal / 1 inverted, then the bit patterns of the rate, the window
/// length and the step as Doubles, 8 bytes padding), then blocks of (samples lost before it: Int32,
/// count: Int32, count Int32 samples), as the recording reader cut them.
struct FirmwareInput {
  var rateHz = 0.0
  var inverted = false
  var windowSeconds = 60.0
  var stepSeconds = 10.0
  var blocks: [(gapBefore: Int, samples: [Int32])] = []
  var sampleCount = 0

  static let magic: UInt32 = 0x3151_4D53  // "SMQ1"

  init?(file: HostFile) {
    var header = [UInt8](repeating: 0, count: 40)
    guard header.withUnsafeMutableBytes({ file.read(into: $0) }) else { return nil }
    let word = { (offset: Int) in header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) } }
    let double = { (offset: Int) in
      Double(bitPattern: header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) })
    }
    guard UInt32(littleEndian: word(0)) == Self.magic else { return nil }
    inverted = UInt32(littleEndian: word(4)) == 1
    rateHz = double(8)
    windowSeconds = double(16)
    stepSeconds = double(24)
    var blockHeader: (Int32, Int32) = (0, 0)
    while withUnsafeMutableBytes(of: &blockHeader, { file.read(into: $0) }) {
      let count = Int(Int32(littleEndian: blockHeader.1))
      var samples = [Int32](repeating: 0, count: count)
      guard samples.withUnsafeMutableBytes({ file.read(into: $0) }) else { return nil }
      blocks.append((Int(Int32(littleEndian: blockHeader.0)), samples))
      sampleCount += count
    }
  }
}
