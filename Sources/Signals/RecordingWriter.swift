import Platform

/// Writes a recording in exactly the format `RecordingReader` reads: a header of channel names plus `gap`, one
/// row per sample, and the number of samples lost before a row in its `gap` field. Buffered: one write(2) per
/// 64 KiB, so an SD card sees few, large writes; `flush()` pushes the buffer and fsyncs.
public final class RecordingWriter {
  // MARK: - Properties

  public let path: String
  public let channelNames: [String]
  private var file: FileDescriptor?
  private var buffer: [UInt8] = []
  private var pendingGap = 0
  private static let flushThreshold = 1 << 16

  // MARK: - Initialization

  /// Creates (or truncates) `path` and writes the header. The sidecar is written by `finish(sidecar:)`.
  public init(path: String, channels: [String]) throws(RecordingError) {
    self.path = path
    channelNames = channels
    do {
      file = try FileDescriptor.open(path, .writeOnly, options: [.create, .truncate], permissions: 0o644)
    } catch {
      throw .cannotCreate(path: path, reason: error.description)
    }
    buffer.reserveCapacity(Self.flushThreshold + 256)
    append((channels + ["gap"]).joined(separator: ","))
    buffer.append(0x0A)
  }

  deinit { try? file?.close() }

  // MARK: - Public

  /// Marks `count` samples as lost before the next row.
  public func markGap(_ count: Int) { pendingGap += max(0, count) }

  /// Appends one sample row; `values` has one entry per channel.
  public func append(_ values: [Int32]) throws(RecordingError) {
    for (i, value) in values.enumerated() {
      if i > 0 { buffer.append(0x2C) }
      appendInteger(Int64(value))
    }
    buffer.append(0x2C)
    if pendingGap > 0 {
      appendInteger(Int64(pendingGap))
      pendingGap = 0
    } else {
      buffer.append(0x30)
    }
    buffer.append(0x0A)
    if buffer.count >= Self.flushThreshold { try writeBuffer() }
  }

  /// Writes what is buffered and fsyncs the file.
  public func flush() throws(RecordingError) {
    try writeBuffer()
    do { try file?.sync() } catch { throw .writeFailed(path: path, reason: error.description) }
  }

  /// Flushes, closes, and writes the sidecar JSON beside the file.
  public func finish(sidecar: RecordingSidecar) throws(RecordingError) {
    try flush()
    try? file?.close()
    file = nil
    var sidecar = sidecar
    sidecar.columns = channelNames + ["gap"]
    try sidecar.write(forRecording: path)
  }

  // MARK: - Private

  private func append(_ text: String) { buffer.append(contentsOf: Array(text.utf8)) }

  private func appendInteger(_ value: Int64) {
    if value < 0 { buffer.append(0x2D) }
    var magnitude = value.magnitude
    var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
      (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var n = 0
    withUnsafeMutableBytes(of: &digits) { raw in
      repeat {
        raw[n] = UInt8(magnitude % 10) + 0x30
        magnitude /= 10
        n += 1
      } while magnitude > 0
      for k in stride(from: n - 1, through: 0, by: -1) { buffer.append(raw[k]) }
    }
  }

  private func writeBuffer() throws(RecordingError) {
    do {
      try file?.writeAll(buffer)
    } catch {
      throw .writeFailed(path: path, reason: error.description)
    }
    buffer.removeAll(keepingCapacity: true)
  }
}
