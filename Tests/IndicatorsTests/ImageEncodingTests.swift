import Indicators
import StressModel
import TestSupport
import Testing

@Suite("PNG and PBM files")
struct ImageEncodingTests {
  static let picture = PanelLayout.render(
    PanelContent(category: .mild, level: 37, hrvMs: 42, heartRateBpm: 71, measuredAt: ClockTime(hour: 9, minute: 41)),
    width: 250, height: 122).image

  @Test("Checksums match the standard check values (CRC-32 of \"123456789\", Adler-32 of \"Wikipedia\")")
  func checksums() {
    #expect(PNGEncoder.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
    #expect(PNGEncoder.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
  }

  @Test("A PNG decodes back to the same pixels: signature, IHDR, CRCs, zlib header, deflate, Adler-32")
  func pngRoundTrip() throws {
    for image in [Self.picture, Self.picture.scaled(by: 3), Bitmap(width: 1, height: 1, ink: true)] {
      let file = PNGEncoder.encode(image)
      #expect(try PNGReader.decode(file) == image)
      // Compression pays on panel pictures: under a third of the raw rows
      if image.width > 100 { #expect(file.count * 3 < image.bytes.count) }
    }
  }

  @Test("Deflate round-trips every kind of input: empty, runs, long repeats, all byte values, noise")
  func deflateRoundTrip() throws {
    var noise = [UInt8]()
    var state: UInt32 = 7
    for _ in 0..<70_000 {
      state = state &* 1_103_515_245 &+ 12_345
      noise.append(UInt8(truncatingIfNeeded: state >> 16))
    }
    let inputs: [[UInt8]] = [
      [], [42], [UInt8](repeating: 0xFF, count: 100_000), Array(0...255) + Array(0...255) + [1, 2, 3],
      Array((0..<40_000).map { UInt8(truncatingIfNeeded: $0 % 251) }), noise,
    ]
    for input in inputs {
      let stream = PNGEncoder.zlibCompressed(input)
      let (output, end) = try PNGReader.inflate(stream, from: 2)
      #expect(output == input)
      #expect(end + 4 == stream.count)
      let stored = PNGEncoder.zlibStored(input)
      #expect(try PNGReader.inflate(stored, from: 2).0 == input)
    }
  }

  @Test("A PBM round-trips with its comment lines; a truncated one is refused with the reason")
  func pbmRoundTrip() throws {
    let bytes = PBMCodec.encode(Self.picture, comments: ["panel waveshare-2in13-v4", "category mild"])
    #expect(bytes.starts(with: Array("P4\n# panel waveshare-2in13-v4\n# category mild\n250 122\n".utf8)))
    let (image, comments) = try PBMCodec.decode(bytes)
    #expect(image == Self.picture)
    #expect(comments == ["panel waveshare-2in13-v4", "category mild"])
    #expect(throws: PBMError.self) { _ = try PBMCodec.decode(Array(bytes.dropLast(5))) }
    #expect(throws: PBMError.self) { _ = try PBMCodec.decode(Array("P1\n2 2\n0101".utf8)) }
  }
}

/// An independent PNG reader for the tests: checks every structure the format requires and inflates stored
/// deflate blocks (the only kind the encoder writes; anything else is reported as unsupported).
enum PNGReader {
  struct Invalid: Error { var reason: String }

  /// Inflates stored and fixed-Huffman blocks (RFC 1951 §3.2.4, §3.2.6); returns the data and the index of the
  /// first byte after the stream.
  static func inflate(_ bytes: [UInt8], from start: Int) throws -> ([UInt8], Int) {
    var out: [UInt8] = []
    var bit = start * 8
    func bits(_ n: Int) -> Int {  // LSB first
      var value = 0
      for k in 0..<n {
        value |= Int((bytes[bit >> 3] >> UInt8(bit & 7)) & 1) << k
        bit += 1
      }
      return value
    }
    func huffman(_ n: Int) -> Int {  // MSB first
      var value = 0
      for _ in 0..<n { value = value << 1 | bits(1) }
      return value
    }
    func literal() -> Int {
      var code = huffman(7)
      if code <= 0b0010111 { return 256 + code }
      code = code << 1 | bits(1)
      if (0x30...0xBF).contains(code) { return code - 0x30 }
      if (0xC0...0xC7).contains(code) { return 280 + code - 0xC0 }
      code = code << 1 | bits(1)
      return 144 + code - 0x190
    }
    let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163,
                      195, 227, 258]
    let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049,
                        3073, 4097, 6145, 8193, 12289, 16385, 24577]
    let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
    var final = 0
    repeat {
      final = bits(1)
      switch bits(2) {
      case 0:
        bit = (bit + 7) / 8 * 8
        let at = bit >> 3
        let length = Int(bytes[at]) | Int(bytes[at + 1]) << 8
        let check = Int(bytes[at + 2]) | Int(bytes[at + 3]) << 8
        guard length ^ check == 0xFFFF else { throw Invalid(reason: "LEN/NLEN") }
        out += bytes[(at + 4)..<(at + 4 + length)]
        bit = (at + 4 + length) * 8
      case 1:
        while true {
          let symbol = literal()
          if symbol < 256 { out.append(UInt8(symbol)); continue }
          if symbol == 256 { break }
          let index = symbol - 257
          let length = lengthBase[index] + bits(lengthExtra[index])
          let code = huffman(5)
          let distance = distanceBase[code] + bits(distanceExtra[code])
          guard distance <= out.count else { throw Invalid(reason: "distance beyond the start") }
          for _ in 0..<length { out.append(out[out.count - distance]) }
        }
      default:
        throw Invalid(reason: "unsupported block type")
      }
    } while final == 0
    return (out, (bit + 7) / 8)
  }

  static func decode(_ file: [UInt8]) throws -> Bitmap {
    guard file.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw Invalid(reason: "signature") }
    var index = 8
    var width = 0, height = 0
    var idat: [UInt8] = []
    var sawEnd = false
    func u32(_ at: Int) -> UInt32 { file[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) } }
    while index < file.count {
      let length = Int(u32(index))
      let type = String(decoding: file[(index + 4)..<(index + 8)], as: UTF8.self)
      let body = Array(file[(index + 8)..<(index + 8 + length)])
      guard PNGEncoder.crc32(Array(file[(index + 4)..<(index + 8 + length)])) == u32(index + 8 + length) else {
        throw Invalid(reason: "CRC of \(type)")
      }
      switch type {
      case "IHDR":
        width = Int(body[0..<4].reduce(0) { $0 << 8 | UInt32($1) })
        height = Int(body[4..<8].reduce(0) { $0 << 8 | UInt32($1) })
        guard body[8] == 1, body[9] == 0, body[12] == 0 else { throw Invalid(reason: "not 1-bit greyscale") }
      case "IDAT": idat += body
      case "IEND": sawEnd = true
      default: break
      }
      index += 12 + length
    }
    guard sawEnd else { throw Invalid(reason: "no IEND") }
    guard (UInt16(idat[0]) << 8 | UInt16(idat[1])) % 31 == 0, idat[0] & 0x0F == 8 else { throw Invalid(reason: "zlib header") }
    let (raw, end) = try inflate(idat, from: 2)
    let adler = idat[end..<(end + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    guard adler == PNGEncoder.adler32(raw) else { throw Invalid(reason: "Adler-32") }
    let rowBytes = (width + 7) / 8
    guard raw.count == (rowBytes + 1) * height else { throw Invalid(reason: "data size") }
    var image = Bitmap(width: width, height: height)
    for y in 0..<height {
      guard raw[y * (rowBytes + 1)] == 0 else { throw Invalid(reason: "filter") }
      for x in 0..<width {
        let byte = raw[y * (rowBytes + 1) + 1 + x / 8]
        image[x, y] = byte & (0x80 >> UInt8(x % 8)) == 0  // grey 0 = black = ink
      }
    }
    return image
  }
}
