import Platform
import Signals
import TestSupport
import Testing

/// Rows of several columns (the sensor's own `ir,red,gap`): plain rows take the multi-column lane, the rest the
/// general parser. Both must give the same values, gaps, indices and errors.
@Suite("Reading rows of several columns")
struct RecordingReaderRowsTests {
  @Test("Every form of a gap,ir,red,temp row reads the same, for any columns asked, across chunks and block sizes",
    arguments: [nil, ["ir", "red"], ["red", "ir", "red"]] as [[String]?])
  func everyRowFormReadsTheSame(channels: [String]?) throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let rows = Self.rows(count: 150_000, seed: 42)
    let path = try dir.write("rows.csv", "gap,ir,red,temp\n" + rows.map(\.text).joined())
    let columns = (channels ?? ["ir"]).map { $0 == "ir" ? 0 : 1 }
    var indices: [Int] = []
    var next = 0
    for row in rows where row.text != "\n" {
      indices.append(next + row.gap)
      next += row.gap + 1
    }
    let values = rows.filter { $0.text != "\n" }
    for blockSize in [1 << 16, 777, 5] {
      let reader = try RecordingReader(path: path, channels: channels, readSidecar: false)
      #expect(reader.scale == 1)
      var read = [[Int32]](repeating: [], count: columns.count)
      var gaps = 0
      var wrongIndex: Int?
      while let block = try reader.nextBlock(maxSamples: blockSize) {
        if wrongIndex == nil && indices[read[0].count] != block.firstSampleIndex { wrongIndex = read[0].count }
        gaps += block.gapBefore
        for (c, channel) in block.channels.enumerated() { read[c] += channel }
      }
      #expect(wrongIndex == nil, "block size \(blockSize): a block starting at row \(wrongIndex ?? 0) has the wrong index")
      #expect(gaps == rows.reduce(0) { $0 + $1.gap })
      for (c, column) in columns.enumerated() {
        let expected = values.map { column == 0 ? $0.ir : $0.red }
        #expect(read[c].count == expected.count)
        let firstDifference = read[c].indices.first { $0 < expected.count && read[c][$0] != expected[$0] }
        #expect(firstDifference == nil, "block size \(blockSize), channel \(c): row \(firstDifference ?? 0) differs")
      }
    }
  }

  @Test("A bad row of several columns names the line and the column", arguments: [
    ("ir,red\n1,2\n3\n", ["ir", "red"], "x.csv:3: '' in column 'red'"),
    ("ir,red\n1,2\n3,4x\n", ["ir", "red"], "x.csv:3: '4x' in column 'red'"),
    ("ir,red\n1,2\n,4\n", nil, "x.csv:3: '' in column 'ir'"),
    ("ir,red\n1,2\n3,4\n5 5,6\n", nil, "x.csv:4: '5 5' in column 'ir'"),
    ("ir,red\n1,2\n99999999999,4\n", nil, "x.csv:3: the value in column 'ir' is too large"),
    ("ir,red,gap\n1,2,0\n3,4,x\n", nil, "x.csv:3: 'x' in column 'gap'"),
  ] as [(String, [String]?, String)])
  func badRow(text: String, channels: [String]?, expected: String) throws {
    try expectBadData(text, channels: channels, saying: expected)
  }

  @Test("Columns not asked for are skipped unread, and fields past the header are ignored, as before")
  func unaskedColumnsAreSkipped() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = try dir.write("x.csv", "ir,red\n1,abc\n2,\n3,4,5\n4,5\r\n5\n6,7")
    let reader = try RecordingReader(path: path, readSidecar: false)
    #expect(try reader.readAll().flatMap { $0.channels[0] } == [1, 2, 3, 4, 5, 6])
  }

  /// `count` rows (and a blank line now and then) in the forms a CSV writer might use: plain, padded, quoted,
  /// `\r\n`, signed, long, with a gap now and then, and a last column never asked for (text, empty, or with a field
  /// past the header). Each with its values and gap.
  private static func rows(count: Int, seed: UInt64) -> [(text: String, ir: Int32, red: Int32, gap: Int)] {
    var generator = SplitMix64(seed: seed)
    var rows: [(text: String, ir: Int32, red: Int32, gap: Int)] = []
    func field(_ n: Int32) -> String {
      let forms = ["\(n)", "\(n)", "\(n)", "\(n)", " \(n)", "\"\(n)\"", n < 0 ? "\(n)" : "+\(n)", "\(n)\t"]
      return forms[Int.random(in: 0..<forms.count, using: &generator)]
    }
    for _ in 0..<count {
      let digits = Int.random(in: 1...10, using: &generator)
      let limit: Int64 = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
        2_147_483_647][digits]
      var ir = Int32(clamping: Int64.random(in: 0..<limit, using: &generator))
      if Int.random(in: 0..<50, using: &generator) == 0 { ir = -ir }
      let red = Int32.random(in: -300_000...300_000, using: &generator)
      let gap = Int.random(in: 0..<400, using: &generator) == 0 ? Int.random(in: 1...9, using: &generator) : 0
      let end = Int.random(in: 0..<10, using: &generator) == 0 ? "\r\n" : "\n"
      let gapText = gap == 0 && Int.random(in: 0..<20, using: &generator) == 0 ? "" : "\(gap)"
      let temp = ["36.6", "36.6", "", "x y", "\"t\"", "37,1", "-"][Int.random(in: 0..<7, using: &generator)]
      rows.append(("\(gapText),\(field(ir)),\(field(red)),\(temp)\(end)", ir, red, gap))
      if Int.random(in: 0..<700, using: &generator) == 0 { rows.append(("\n", 0, 0, 0)) }
    }
    return rows
  }
}
