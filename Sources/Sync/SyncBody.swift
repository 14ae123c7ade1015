import CompressNIO
import FoundationEssentials
import NIOCore
import SyncWire

/// The ingest request body on the wire: JSON, gzip-compressed (JSON rows shrink ~7×, which matters on a
/// Pi Zero's Wi-Fi and a metered link).
public enum SyncBody {
  public static func encode(_ request: IngestRequest) throws -> [UInt8] {
    var buffer = ByteBuffer(bytes: try JSONEncoder().encode(request))
    let compressed = try buffer.compress(with: .gzip())
    return Array(buffer: compressed)
  }

  /// The inverse of `encode`, refusing to inflate past `maxBytes` (tests and tools; the hub has its own reader).
  public static func decode(_ gzipped: [UInt8], maxBytes: Int = SyncAPI.maxBodyBytes) throws -> IngestRequest {
    var buffer = ByteBuffer(bytes: gzipped)
    let inflated = try buffer.decompress(with: .gzip(), maxSize: maxBytes)
    return try JSONDecoder().decode(IngestRequest.self, from: Data(Array(buffer: inflated)))
  }

  /// Whether `bytes` start with the gzip magic number (RFC 1952 §2.3.1).
  public static func isGzip(_ bytes: [UInt8]) -> Bool {
    bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
  }
}
