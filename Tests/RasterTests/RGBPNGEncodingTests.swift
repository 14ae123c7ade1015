import Raster
import TestSupport
import Testing

@Suite("RGB PNG files")
struct RGBPNGEncodingTests {
  @Test("An RGB PNG decodes back to the same pixels in a real decoder: IHDR colour type 2 at 8 bits, CRCs, zlib",
        .enabled(if: PNGDecoder.isAvailable, "python3 is not installed (scripts/setup --test installs it)"))
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
      let decoded = try PNGDecoder.decode(file)
      #expect(decoded.bitDepth == 8 && decoded.colourType == 2)
      #expect(decoded.width == width && decoded.height == height)
      #expect(decoded.pixels == rgb)
    }
  }
}
