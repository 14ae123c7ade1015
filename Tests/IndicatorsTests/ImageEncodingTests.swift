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

  @Test("A PNG decodes back to the same pixels: signature, IHDR, CRCs, zlib header, stored blocks, Adler-32")
  func pngRoundTrip() throws {
    for image in [Self.picture, Self.picture.scaled(by: 3), Bitmap(width: 1, height: 1, ink: true)] {
      let decoded = try PNGReader.decode(PNGEncoder.encode(image))
      #expect(decoded == image)
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
    var raw: [UInt8] = []
    var at = 2
    while true {
      let header = idat[at]
      guard header & 0b110 == 0 else { throw Invalid(reason: "unsupported block type") }
      let length = Int(idat[at + 1]) | Int(idat[at + 2]) << 8
      let check = Int(idat[at + 3]) | Int(idat[at + 4]) << 8
      guard length ^ check == 0xFFFF else { throw Invalid(reason: "LEN/NLEN") }
      raw += idat[(at + 5)..<(at + 5 + length)]
      at += 5 + length
      if header & 1 == 1 { break }
    }
    let adler = idat[at..<(at + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
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
