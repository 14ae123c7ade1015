/// A small deflate encoder (RFC 1951) for PNG: greedy LZ77 over a 32 KiB window with hash chains, coded with
/// the fixed Huffman tables (§3.2.6). One-bit panel pictures are long runs and repeated rows, which this
/// shrinks about tenfold; there is no dynamic-table or lazy-matching search because nothing here needs it.
enum Deflate {
  // MARK: - RFC 1951 tables (§3.2.5)

  static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99,
                                  115, 131, 163, 195, 227, 258]
  static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
  static let distanceBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                                    1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
  static let distanceExtra: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11,
                                     12, 12, 13, 13]

  static let window = 32_768
  static let minimumMatch = 3
  static let maximumMatch = 258
  /// Candidates tried per position: enough for repeated rows and runs, bounded so encoding stays linear.
  static let chainLimit = 32

  // MARK: - Public

  /// One final fixed-Huffman block holding `data`.
  static func compress(_ data: [UInt8]) -> [UInt8] {
    var out = BitWriter()
    out.write(1, bits: 1)  // BFINAL
    out.write(1, bits: 2)  // BTYPE 01: fixed Huffman
    let hashSize = 1 << 15
    var head = [Int](repeating: -1, count: hashSize)
    var previous = [Int](repeating: -1, count: window)
    func hash(_ i: Int) -> Int {
      (Int(data[i]) << 10 ^ Int(data[i + 1]) << 5 ^ Int(data[i + 2])) & (hashSize - 1)
    }
    func insert(_ i: Int) {
      guard i + 2 < data.count else { return }
      let h = hash(i)
      previous[i % window] = head[h]
      head[h] = i
    }
    var i = 0
    while i < data.count {
      var bestLength = 0
      var bestDistance = 0
      if i + minimumMatch <= data.count {
        var candidate = head[hash(i)]
        var tries = 0
        let limit = min(maximumMatch, data.count - i)
        while candidate >= 0 && i - candidate <= window && tries < chainLimit {
          var length = 0
          while length < limit && data[candidate + length] == data[i + length] { length += 1 }
          if length > bestLength {
            bestLength = length
            bestDistance = i - candidate
            if length == limit { break }
          }
          candidate = previous[candidate % window]
          tries += 1
        }
      }
      if bestLength >= minimumMatch {
        writeLength(bestLength, to: &out)
        writeDistance(bestDistance, to: &out)
        for position in i..<(i + bestLength) { insert(position) }
        i += bestLength
      } else {
        writeLiteral(Int(data[i]), to: &out)
        insert(i)
        i += 1
      }
    }
    writeLiteral(256, to: &out)  // end of block
    return out.finish()
  }

  // MARK: - Fixed Huffman codes (§3.2.6)

  private static func writeLiteral(_ symbol: Int, to out: inout BitWriter) {
    switch symbol {
    case 0...143: out.writeCode(0x30 + symbol, bits: 8)
    case 144...255: out.writeCode(0x190 + symbol - 144, bits: 9)
    case 256...279: out.writeCode(symbol - 256, bits: 7)
    default: out.writeCode(0xC0 + symbol - 280, bits: 8)
    }
  }

  private static func writeLength(_ length: Int, to out: inout BitWriter) {
    let index = lengthBase.lastIndex { $0 <= length }!
    writeLiteral(257 + index, to: &out)
    out.write(length - lengthBase[index], bits: lengthExtra[index])
  }

  private static func writeDistance(_ distance: Int, to out: inout BitWriter) {
    let index = distanceBase.lastIndex { $0 <= distance }!
    out.writeCode(index, bits: 5)
    out.write(distance - distanceBase[index], bits: distanceExtra[index])
  }
}

/// Packs bits least significant first, as deflate streams are laid out.
struct BitWriter {
  private var bytes: [UInt8] = []
  private var accumulator: UInt32 = 0
  private var count = 0

  /// `value`'s low `bits` bits, least significant first (extra bits, header fields).
  mutating func write(_ value: Int, bits: Int) {
    guard bits > 0 else { return }
    accumulator |= UInt32(value & ((1 << bits) - 1)) << UInt32(count)
    count += bits
    while count >= 8 {
      bytes.append(UInt8(accumulator & 0xFF))
      accumulator >>= 8
      count -= 8
    }
  }

  /// A Huffman code, most significant bit first (§3.1.1).
  mutating func writeCode(_ code: Int, bits: Int) {
    var reversed = 0
    for bit in 0..<bits where code & (1 << bit) != 0 { reversed |= 1 << (bits - 1 - bit) }
    write(reversed, bits: bits)
  }

  mutating func finish() -> [UInt8] {
    if count > 0 { bytes.append(UInt8(accumulator & 0xFF)) }
    accumulator = 0
    count = 0
    return bytes
  }
}
