import Foundation

/// A PNG read back by a decoder that is not ours: Python's zlib inflates the IDAT stream (any deflate block type,
/// checking the zlib header and the Adler-32 trailer) and checks every chunk's CRC-32. What the encoder writes is
/// judged by what a real reader accepts, not by a second copy of its own assumptions.
public struct DecodedPNG: Sendable, Equatable {
  public var width: Int
  public var height: Int
  public var bitDepth: Int
  public var colourType: Int
  /// The image rows with their filter bytes removed (only filter type 0 is accepted: the encoder writes no other).
  public var pixels: [UInt8]
  /// BTYPE of the first deflate block: 0 stored, 1 fixed Huffman, 2 dynamic Huffman.
  public var firstBlockType: Int
}

public enum PNGDecoder {
  public struct Invalid: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { "not a valid PNG: \(reason)" }
  }

  /// Whether python3 is on this machine (scripts/setup --test installs it); tests skip without it.
  public static let isAvailable: Bool = {
    let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return paths.contains { FileManager.default.isExecutableFile(atPath: "\($0)/python3") }
  }()

  public static func decode(_ file: [UInt8]) throws -> DecodedPNG {
    let directory = try TemporaryDirectory("png")
    defer { directory.remove() }
    let path = directory.file("image.png")
    try Data(file).write(to: URL(fileURLWithPath: path))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, path]
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw Invalid(reason: String(decoding: errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
    guard let json = try JSONSerialization.jsonObject(with: output) as? [String: Any],
          let width = json["width"] as? Int, let height = json["height"] as? Int,
          let depth = json["bit_depth"] as? Int, let colour = json["colour_type"] as? Int,
          let hex = json["pixels"] as? String, let block = json["block_type"] as? Int
    else { throw Invalid(reason: "the decoder's answer was not understood") }
    var pixels: [UInt8] = []
    pixels.reserveCapacity(hex.utf8.count / 2)
    var high: UInt8 = 0
    for (index, digit) in hex.utf8.enumerated() {
      let value = digit <= 57 ? digit - 48 : digit - 87
      if index % 2 == 0 { high = value } else { pixels.append(high << 4 | value) }
    }
    return DecodedPNG(
      width: width, height: height, bitDepth: depth, colourType: colour, pixels: pixels, firstBlockType: block)
  }

  private static let script = """
    import json, struct, sys, zlib
    data = open(sys.argv[1], 'rb').read()
    if data[:8] != b'\\x89PNG\\r\\n\\x1a\\n': sys.exit('signature')
    i, idat, ihdr, ended = 8, b'', None, False
    while i < len(data):
        n, = struct.unpack('>I', data[i:i + 4])
        kind, body = data[i + 4:i + 8], data[i + 8:i + 8 + n]
        if zlib.crc32(kind + body) != struct.unpack('>I', data[i + 8 + n:i + 12 + n])[0]:
            sys.exit('CRC of ' + kind.decode())
        if kind == b'IHDR': ihdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT': idat += body
        elif kind == b'IEND': ended = True
        i += 12 + n
    if ihdr is None or not ended: sys.exit('no IHDR or no IEND')
    width, height, depth, colour, method, filtering, interlace = ihdr
    if (method, filtering, interlace) != (0, 0, 0): sys.exit('method, filter or interlace')
    raw = zlib.decompress(idat)
    row = (width * {0: 1, 2: 3}[colour] * depth + 7) // 8
    if len(raw) != (row + 1) * height: sys.exit('data size')
    pixels = bytearray()
    for y in range(height):
        start = y * (row + 1)
        if raw[start] != 0: sys.exit('filter type %d' % raw[start])
        pixels += raw[start + 1:start + 1 + row]
    print(json.dumps({'width': width, 'height': height, 'bit_depth': depth, 'colour_type': colour,
                      'pixels': pixels.hex(), 'block_type': (idat[2] >> 1) & 3}))
    """
}
