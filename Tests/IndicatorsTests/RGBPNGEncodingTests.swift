import Indicators
import Testing

@Suite("RGB PNG files")
struct RGBPNGEncodingTests {
  @Test("An RGB PNG decodes back to the same pixels: IHDR colour type 2 at 8 bits, CRCs, zlib, Adler-32")
  func roundTrip() throws {
    var state: UInt32 = 11
    let noise = (0..<(37 * 23 * 3)).map { _ -> UInt8 in
      state = state &* 1_103_515_245 &+ 12_345
      return UInt8(truncatingIfNeeded: state >> 16)
    }
    let gradient = (0..<(300 * 200)).flatMap { index -> [UInt8] in
      let x = index % 300
      let y = index / 300
      return [UInt8(x % 256), UInt8(y), UInt8((x / 20 + y / 20) % 2 == 0 ? 255 : 30)]
    }
    for (width, height, rgb) in [(1, 1, [UInt8(1), 2, 3]), (37, 23, noise), (300, 200, gradient)] {
      let file = PNGEncoder.encodeRGB(width: width, height: height, rgb: rgb)
      let decoded = try Self.decode(file)
      #expect(decoded.width == width && decoded.height == height)
      #expect(decoded.rgb == rgb)
    }
  }

  /// Reads a truecolour PNG with filter type 0 rows, checking every chunk CRC and the zlib trailer.
  static func decode(_ file: [UInt8]) throws -> (width: Int, height: Int, rgb: [UInt8]) {
    guard file.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
      throw PNGReader.Invalid(reason: "signature")
    }
    func u32(_ at: Int) -> Int { file[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
    var index = 8
    var width = 0, height = 0
    var idat: [UInt8] = []
    while index < file.count {
      let length = u32(index)
      let type = String(decoding: file[(index + 4)..<(index + 8)], as: UTF8.self)
      guard PNGEncoder.crc32(Array(file[(index + 4)..<(index + 8 + length)])) == UInt32(u32(index + 8 + length)) else {
        throw PNGReader.Invalid(reason: "CRC of \(type)")
      }
      if type == "IHDR" {
        width = u32(index + 8)
        height = u32(index + 12)
        guard file[index + 16] == 8, file[index + 17] == 2, file[index + 20] == 0 else {
          throw PNGReader.Invalid(reason: "not 8-bit RGB")
        }
      }
      if type == "IDAT" { idat += file[(index + 8)..<(index + 8 + length)] }
      index += 12 + length
    }
    let (raw, end) = try PNGReader.inflate(idat, from: 2)
    guard idat[end..<(end + 4)].reduce(UInt32(0), { $0 << 8 | UInt32($1) }) == PNGEncoder.adler32(raw) else {
      throw PNGReader.Invalid(reason: "Adler-32")
    }
    guard raw.count == (width * 3 + 1) * height else { throw PNGReader.Invalid(reason: "data size") }
    var rgb: [UInt8] = []
    for y in 0..<height {
      let row = y * (width * 3 + 1)
      guard raw[row] == 0 else { throw PNGReader.Invalid(reason: "filter") }
      rgb += raw[(row + 1)..<(row + 1 + width * 3)]
    }
    return (width, height, rgb)
  }
}
