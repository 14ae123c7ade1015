import CZlib
import NIOCore

/// A `Content-Encoding: gzip` request body, inflated by the system zlib under two rules: it is exactly one
/// complete gzip member (RFC 1952: its CRC-32 and length trailer present and right, nothing after it), and it
/// inflates to at most a limit. A body that is two members, or one with bytes after it, would otherwise be read
/// as its first member alone, quietly dropping the rest; a body without its trailer was cut on the way.
enum GzipBody {
  enum Failure: Error, Equatable {
    /// Inflates past the limit (a gzip bomb, or a batch too large).
    case tooLarge
    /// Not gzip, corrupt, or its CRC-32 or length does not match.
    case corrupt(String)
    /// The member ends before its trailer.
    case truncated
    /// Bytes after the member: a second member, or garbage.
    case trailingBytes(Int)
  }

  /// Zlib's window bits for "gzip wrapper only, 32 KiB window" (zlib.h, `inflateInit2`: 15, plus 16 for gzip).
  private static let gzipWindowBits: Int32 = 15 + 16
  /// Output is inflated this much at a time.
  private static let step = 64 * 1024

  static func inflate(_ body: ByteBuffer, limit: Int) throws(Failure) -> ByteBuffer {
    var stream = z_stream()
    guard inflateInit2_(&stream, gzipWindowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
      throw .corrupt("zlib could not start")
    }
    defer { inflateEnd(&stream) }
    var output: [UInt8] = []
    var input = Array(body.readableBytesView)
    var status: Int32 = Z_OK
    let result: Result<Void, Failure> = input.withUnsafeMutableBufferPointer { input in
      stream.next_in = input.baseAddress
      stream.avail_in = uInt(input.count)
      var chunk = [UInt8](repeating: 0, count: step)
      repeat {
        status = chunk.withUnsafeMutableBufferPointer { chunk in
          stream.next_out = chunk.baseAddress
          stream.avail_out = uInt(chunk.count)
          return CZlib.inflate(&stream, Z_NO_FLUSH)
        }
        let produced = chunk.count - Int(stream.avail_out)
        guard output.count + produced <= limit else { return .failure(.tooLarge) }
        output.append(contentsOf: chunk[0..<produced])
        switch status {
        case Z_OK:
          continue
        case Z_STREAM_END:
          guard stream.avail_in == 0 else { return .failure(.trailingBytes(Int(stream.avail_in))) }
          return .success(())
        case Z_BUF_ERROR where stream.avail_in == 0:
          return .failure(.truncated)
        default:
          let reason = stream.msg.flatMap { String(validatingCString: $0) } ?? "zlib status \(status)"
          return .failure(.corrupt(reason))
        }
      } while true
    }
    try result.get()
    return ByteBuffer(bytes: output)
  }
}
