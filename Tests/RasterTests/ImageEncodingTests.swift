import Raster
import StressModel
import TestSupport
import Testing

@Suite("PNG and PBM files")
struct ImageEncodingTests {
  static let picture = PanelLayout.render(
    PanelContent(category: .mild, level: 37, hrvMs: 42, heartRateBpm: 71, measuredAt: ClockTime(hour: 9, minute: 41)),
    width: 250, height: 122).image

  @Test("The chunk checksum matches the standard check value (CRC-32 of \"123456789\")")
  func checksums() {
    #expect(PNGEncoder.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
    #expect(PNGEncoder.crc32([]) == 0)
  }

  @Test("A 1-bit PNG decodes back to the same pixels in a real decoder (signature, IHDR, CRCs, zlib, Adler-32)",
        .enabled(if: PNGDecoder.isAvailable, "python3 is not installed (scripts/setup --test installs it)"))
  func pngRoundTrip() throws {
    for image in [Self.picture, Self.picture.scaled(by: 3), Bitmap(width: 1, height: 1, ink: true)] {
      let file = PNGEncoder.encode(image)
      let decoded = try PNGDecoder.decode(file)
      #expect(decoded.bitDepth == 1 && decoded.colourType == 0)
      #expect(Self.bitmap(decoded) == image)
      // Compression pays on panel pictures: under a quarter of the raw rows, with dynamic Huffman codes
      if image.width > 100 {
        #expect(file.count * 4 < image.bytes.count)
        #expect(decoded.firstBlockType == 2)
      }
    }
  }

  @Test("A large blank or striped image (250 KB of pixels) compresses to under 2 KB and still decodes",
        .enabled(if: PNGDecoder.isAvailable, "python3 is not installed (scripts/setup --test installs it)"))
  func largeUniformImage() throws {
    var striped = Bitmap(width: 2_000, height: 1_000)
    for y in stride(from: 0, to: 1_000, by: 4) { striped.fill(Rect(x: 0, y: y, width: 2_000, height: 1)) }
    for image in [Bitmap(width: 2_000, height: 1_000), striped] {
      let file = PNGEncoder.encode(image)
      #expect(file.count < 2_000, "\(file.count) bytes for \(image.bytes.count) bytes of pixels")
      #expect(Self.bitmap(try PNGDecoder.decode(file)) == image)
    }
  }

  /// The decoded rows as a bitmap: PNG grey 0 is black, which the bitmap stores as a set bit (ink).
  static func bitmap(_ png: DecodedPNG) -> Bitmap? {
    Bitmap(width: png.width, height: png.height, packedRows: png.pixels.map { ~$0 })
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
