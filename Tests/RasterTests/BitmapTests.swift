import Raster
import Testing

@Suite("1-bit canvas")
struct BitmapTests {
  @Test("Pixels pack 8 to a byte, leftmost in the top bit, ink = 1; drawing outside is clipped")
  func packing() {
    var image = Bitmap(width: 10, height: 2)
    image[0, 0] = true
    image[9, 1] = true
    image[10, 0] = true  // outside: ignored
    image[-1, 0] = true
    #expect(image.rowBytes == 2)
    #expect(image.bytes == [0x80, 0x00, 0x00, 0x40])
    #expect(image[10, 0] == false)
    #expect(image.inkCount() == 2)
  }

  @Test("A quarter turn clockwise moves the top-left corner to the top-right; four turns change nothing")
  func rotation() {
    var image = Bitmap(width: 5, height: 3)
    image[0, 0] = true
    image[4, 2] = true
    let turned = image.rotated(clockwiseQuarterTurns: 1)
    #expect(turned.width == 3 && turned.height == 5)
    #expect(turned[2, 0] && turned[0, 4])
    #expect(turned.inkCount() == 2)
    #expect(image.rotated(clockwiseQuarterTurns: 1).rotated(clockwiseQuarterTurns: 3) == image)
    #expect(image.rotated(clockwiseQuarterTurns: 2).rotated(clockwiseQuarterTurns: 2) == image)
  }

  @Test("Inverting keeps row padding clear, so equal pictures stay byte-equal")
  func inversion() {
    let image = Bitmap(width: 13, height: 4)
    let inverted = image.inverted()
    #expect(inverted.inkCount() == 13 * 4)
    #expect(inverted.bytes[1] == 0xF8)
    #expect(inverted.inverted() == image)
    #expect(inverted == Bitmap(width: 13, height: 4, ink: true))
  }

  @Test("Lines, rectangles and scaling put ink where expected")
  func drawing() {
    var image = Bitmap(width: 20, height: 20)
    image.line(from: (0, 0), to: (19, 19))
    #expect((0..<20).allSatisfy { image[$0, $0] } && image.inkCount() == 20)
    image.strokeRect(Rect(x: 2, y: 2, width: 6, height: 6), thickness: 1)
    #expect(image[2, 5] && image[7, 5] && !image[4, 5])
    let scaled = Bitmap(width: 2, height: 1, ink: true).scaled(by: 3)
    #expect(scaled.width == 6 && scaled.height == 3 && scaled.inkCount() == 18)
  }
}
