import CZlib

/// Writes a `Bitmap` as a 1-bit greyscale PNG (ISO/IEC 15948 / RFC 2083), or 8-bit RGB pixels as a truecolour PNG
/// (`encodeRGB`, for the day report). The chunk layout is ours; the compressed stream and the chunk CRC-32 come
/// from the system zlib (RFC 1950 stream, deflate with dynamic Huffman codes at the best compression level), the
/// library compress-nio already links for the sync client.
public enum PNGEncoder {
  // MARK: - Constants (PNG specification)

  static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
  /// IHDR: bit depth 1, colour type 0 (greyscale), deflate, adaptive filtering, no interlace.
  static let bitDepth: UInt8 = 1
  static let colourTypeGreyscale: UInt8 = 0
  /// Colour type 2 (truecolour): three samples per pixel, red, green, blue, at 8 bits each.
  static let colourTypeTruecolour: UInt8 = 2
  static let truecolourBitDepth: UInt8 = 8
  /// Filter type 0 (None) before every row.
  static let filterNone: UInt8 = 0

  // MARK: - Public

  /// The PNG file bytes. Ink is black (grey level 0), paper white (1).
  public static func encode(_ bitmap: Bitmap) -> [UInt8] {
    var raw: [UInt8] = []
    raw.reserveCapacity((bitmap.rowBytes + 1) * bitmap.height)
    let rows = bitmap.bytes
    for y in 0..<bitmap.height {
      raw.append(filterNone)
      for index in 0..<bitmap.rowBytes { raw.append(~rows[y * bitmap.rowBytes + index]) }
    }
    return file(
      width: bitmap.width, height: bitmap.height, bitDepth: bitDepth, colourType: colourTypeGreyscale, raw: raw)
  }

  /// The PNG file bytes of an 8-bit RGB image: `rgb` holds `width × height` pixels row after row, three bytes
  /// (red, green, blue) each.
  public static func encodeRGB(width: Int, height: Int, rgb: [UInt8]) -> [UInt8] {
    precondition(width > 0 && height > 0, "a PNG has at least one pixel")
    precondition(rgb.count == width * height * 3, "expected \(width * height * 3) bytes of RGB, got \(rgb.count)")
    let rowBytes = width * 3
    var raw: [UInt8] = []
    raw.reserveCapacity((rowBytes + 1) * height)
    for y in 0..<height {
      raw.append(filterNone)
      raw += rgb[(y * rowBytes)..<((y + 1) * rowBytes)]
    }
    return file(width: width, height: height, bitDepth: truecolourBitDepth, colourType: colourTypeTruecolour, raw: raw)
  }

  // MARK: - Building blocks

  /// A zlib stream (header, deflate blocks, Adler-32) of `data`: zlib's `compress2` at level 9.
  static func zlibCompressed(_ data: [UInt8]) -> [UInt8] {
    var length = compressBound(uLong(data.count))
    var out = [UInt8](repeating: 0, count: Int(length))
    let status = out.withUnsafeMutableBufferPointer { target in
      data.withUnsafeBufferPointer { source in
        compress2(target.baseAddress, &length, source.baseAddress, uLong(source.count), Z_BEST_COMPRESSION)
      }
    }
    // With a compressBound-sized buffer the only failure left is Z_MEM_ERROR: out of memory, as for any array.
    precondition(status == Z_OK, "zlib compress2 failed (\(status)): out of memory")
    out.removeSubrange(Int(length)...)
    return out
  }

  /// Signature, IHDR (deflate, no interlace), one IDAT of the filtered rows `raw`, IEND.
  static func file(width: Int, height: Int, bitDepth: UInt8, colourType: UInt8, raw: [UInt8]) -> [UInt8] {
    var header: [UInt8] = []
    header.appendBigEndian(UInt32(width))
    header.appendBigEndian(UInt32(height))
    header += [bitDepth, colourType, 0, 0, 0]
    var bytes = signature
    bytes += chunk("IHDR", header)
    bytes += chunk("IDAT", zlibCompressed(raw))
    bytes += chunk("IEND", [])
    return bytes
  }

  /// One chunk: length, type, data, and the CRC-32 of type and data.
  static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.appendBigEndian(UInt32(data.count))
    let typed = Array(type.utf8) + data
    out += typed
    out.appendBigEndian(crc32(typed))
    return out
  }

  /// CRC-32 (ISO 3309, as PNG chunks use), from zlib.
  public static func crc32(_ data: [UInt8]) -> UInt32 {
    UInt32(data.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, uInt($0.count)) })
  }
}

/// Portable bitmap (Netpbm PBM, binary "P4"): the simplest 1-bit image file, also used for the panel's previous
/// frame on disk (its comment lines carry the refresh-policy state, so the file stays viewable).
public enum PBMCodec {
  /// `P4`, optional `# comment` lines, `width height`, then packed rows with 1 = black, as `Bitmap` stores them.
  public static func encode(_ bitmap: Bitmap, comments: [String] = []) -> [UInt8] {
    var header = "P4\n"
    for comment in comments { header += "# " + comment.filter { $0 != "\n" } + "\n" }
    header += "\(bitmap.width) \(bitmap.height)\n"
    return Array(header.utf8) + bitmap.bytes
  }

  /// Parses a P4 file. Returns the image and its comment lines (without "# ").
  public static func decode(_ bytes: [UInt8]) throws(PBMError) -> (bitmap: Bitmap, comments: [String]) {
    var index = 0
    var comments: [String] = []
    func skipSpaceAndComments() {
      while index < bytes.count {
        if bytes[index] == UInt8(ascii: "#") {
          var end = index
          while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
          var text = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
          if text.hasPrefix(" ") { text.removeFirst() }
          comments.append(text)
          index = end + 1
        } else if [9, 10, 13, 32].contains(bytes[index]) {
          index += 1
        } else {
          return
        }
      }
    }
    func number() throws(PBMError) -> Int {
      skipSpaceAndComments()
      var value = 0
      var digits = 0
      while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57, digits < 7 {
        value = value * 10 + Int(bytes[index] - 48)
        index += 1
        digits += 1
      }
      guard digits > 0 else { throw .malformed("expected a number at byte \(index)") }
      return value
    }
    guard bytes.count >= 2, bytes[0] == UInt8(ascii: "P"), bytes[1] == UInt8(ascii: "4") else {
      throw .malformed("not a binary PBM (P4) file")
    }
    index = 2
    let width = try number()
    let height = try number()
    guard index < bytes.count, [9, 10, 13, 32].contains(bytes[index]) else { throw .malformed("no separator after the size") }
    index += 1
    let rowBytes = (width + 7) / 8
    guard bytes.count - index == rowBytes * height,
          let bitmap = Bitmap(width: width, height: height, packedRows: Array(bytes[index...]))
    else {
      throw .malformed("expected \(rowBytes * height) bytes of pixels for \(width)×\(height), found \(bytes.count - index)")
    }
    return (bitmap, comments)
  }
}

/// A PBM file that cannot be read.
public enum PBMError: Error, Equatable, CustomStringConvertible {
  case malformed(String)

  public var description: String {
    switch self {
    case .malformed(let reason): "malformed PBM image: \(reason)"
    }
  }
}

extension Array where Element == UInt8 {
  mutating func appendBigEndian(_ value: UInt32) {
    append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
  }
}
