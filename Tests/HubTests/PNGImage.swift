import CompressNIO
import NIOCore

/// Just enough of a PNG reader for screenshots: 8-bit RGB or RGBA, non-interlaced (what Chromium writes).
struct PNGImage {
  let width: Int
  let height: Int
  /// RGB triples, row-major.
  let pixels: [UInt8]

  struct Unsupported: Error, CustomStringConvertible {
    var description: String
  }

  init(bytes: [UInt8]) throws {
    guard bytes.count > 8, bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
      throw Unsupported(description: "not a PNG file")
    }
    var offset = 8
    var width = 0, height = 0, channels = 0
    var compressed: [UInt8] = []
    func be32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
    while offset + 8 <= bytes.count {
      let length = be32(offset)
      let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
      let data = offset + 8
      switch type {
      case "IHDR":
        width = be32(data)
        height = be32(data + 4)
        guard bytes[data + 8] == 8, bytes[data + 12] == 0 else { throw Unsupported(description: "only 8-bit non-interlaced PNG") }
        switch bytes[data + 9] {
        case 2: channels = 3
        case 6: channels = 4
        default: throw Unsupported(description: "colour type \(bytes[data + 9]) not supported")
        }
      case "IDAT":
        compressed += bytes[data..<(data + length)]
      default:
        break
      }
      offset = data + length + 4
    }
    var buffer = ByteBuffer(bytes: compressed)
    let raw = Array(buffer: try buffer.decompress(with: .zlib()))
    let stride = width * channels
    guard raw.count == height * (stride + 1) else { throw Unsupported(description: "truncated image data") }
    var out = [UInt8](repeating: 0, count: width * height * channels)
    for y in 0..<height {
      let filter = raw[y * (stride + 1)]
      for i in 0..<stride {
        let x = raw[y * (stride + 1) + 1 + i]
        let a = i >= channels ? Int(out[y * stride + i - channels]) : 0
        let b = y > 0 ? Int(out[(y - 1) * stride + i]) : 0
        let c = (i >= channels && y > 0) ? Int(out[(y - 1) * stride + i - channels]) : 0
        let predictor: Int
        switch filter {
        case 0: predictor = 0
        case 1: predictor = a
        case 2: predictor = b
        case 3: predictor = (a + b) / 2
        case 4:
          let p = a + b - c
          let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
          predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
        default: throw Unsupported(description: "bad filter \(filter)")
        }
        out[y * stride + i] = UInt8(truncatingIfNeeded: Int(x) + predictor)
      }
    }
    var rgb = [UInt8]()
    rgb.reserveCapacity(width * height * 3)
    for p in 0..<(width * height) {
      rgb += out[(p * channels)..<(p * channels + 3)]
    }
    self.width = width
    self.height = height
    self.pixels = rgb
  }

  func pixel(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
    let i = (y * width + x) * 3
    return (Int(pixels[i]), Int(pixels[i + 1]), Int(pixels[i + 2]))
  }
}
