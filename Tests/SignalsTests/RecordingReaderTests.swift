import Platform
import Signals
import TestSupport
import Testing

@Suite("Reading and writing recordings")
struct RecordingReaderTests {
  @Test("A shared integer recording reads back every sample with scale 1 and its sidecar")
  func readsIntegerRecording() throws {
    let path = try SharedData.path("bsn_bvp_rest.csv")
    let reader = try RecordingReader(path: path)
    #expect(reader.scale == 1)
    #expect(reader.channelNames == ["ppg"])
    #expect(reader.sidecar?.fs == 1000)
    let blocks = try reader.readAll()
    #expect(blocks.reduce(0) { $0 + $1.count } == 105_750)
    #expect(blocks.first?.channels[0].prefix(3) == [45324, 45276, 45224])
    #expect(blocks.allSatisfy { $0.gapBefore == 0 })
  }

  @Test("Decimal BVP becomes fixed point with the decimals it has")
  func readsDecimalRecording() throws {
    let reader = try RecordingReader(path: try SharedData.path("nova_bvp.csv"))
    #expect(reader.scale == 1000)
    let first = try #require(try reader.nextBlock(maxSamples: 3))
    #expect(first.channels[0] == [35069, 35069, 34935])
    #expect(abs(reader.fileValue(first.channels[0][2]) - 34.935) < 1e-9)
  }

  @Test("The sidecar's start-up samples become a leading gap that keeps the timeline's indices")
  func startupSkipIsAGap() throws {
    let reader = try RecordingReader(path: try SharedData.path("bsn_fspo2_chn1.csv"))
    let first = try #require(try reader.nextBlock(maxSamples: 10))
    #expect(first.gapBefore == 2)
    #expect(first.firstSampleIndex == 2)
    #expect(first.channels[0][0] == 40057)
  }

  @Test("Writer and reader round-trip channels and gaps; blocks break at each gap")
  func roundTripWithGaps() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("capture.csv")
    let writer = try RecordingWriter(path: path, channels: ["ir", "red"])
    for i in 0..<10 { try writer.append([Int32(100_000 + i), Int32(-i)]) }
    writer.markGap(5)
    for i in 10..<13 { try writer.append([Int32(100_000 + i), Int32(-i)]) }
    try writer.finish(sidecar: RecordingSidecar(fs: 100, polarity: .inverted))

    let reader = try RecordingReader(path: path, channels: ["ir", "red"])
    #expect(reader.sidecar?.fs == 100)
    #expect(reader.sidecar?.polarity == .inverted)
    #expect(reader.sidecar?.columns == ["ir", "red", "gap"])
    let blocks = try reader.readAll()
    #expect(blocks.count == 2)
    #expect(blocks[0].count == 10 && blocks[0].gapBefore == 0 && blocks[0].firstSampleIndex == 0)
    #expect(blocks[1].count == 3 && blocks[1].gapBefore == 5 && blocks[1].firstSampleIndex == 15)
    #expect(blocks[1].channels[0] == [100_010, 100_011, 100_012])
    #expect(blocks[1].channels[1] == [-10, -11, -12])
    // The default column of a capture is IR.
    #expect(try RecordingReader(path: path).channelNames == ["ir"])
  }

  @Test("Small blocks split the file without losing or repeating a sample")
  func smallBlocks() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = try dir.write("x.csv", "ppg,gap\n" + (0..<50).map { "\($0),\($0 == 20 ? 3 : 0)" }.joined(separator: "\n"))
    let reader = try RecordingReader(path: path)
    var all: [Int32] = []
    var gaps = 0
    while let block = try reader.nextBlock(maxSamples: 7) {
      all += block.channels[0]
      gaps += block.gapBefore
    }
    #expect(all == (0..<50).map { Int32($0) })
    #expect(gaps == 3)
  }

  @Test("Bad input names the file, the line and what to do", arguments: [
    ("ppg\n1\n2\nabc\n4\n", "x.csv:4: 'abc'"),
    ("", "has no samples"),
    ("ppg\n", "has no samples"),
    ("ppg\n\n\n", "has no samples"),
    ("1\n2\n3\n", "not a header"),
    ("time,value\n1,2\n", "none of the columns"),
    ("ppg\n1\n99999999999\n", "too large"),
  ])
  func badInput(text: String, expected: String) throws {
    try expectBadData(text, channels: nil, saying: expected)
  }

  @Test("A missing file is 'no input' (66) and names the path")
  func missingFile() {
    #expect(throws: RecordingError.notFound(path: "/nonexistent/x.csv")) {
      _ = try RecordingReader(path: "/nonexistent/x.csv")
    }
  }

  @Test("Windows line endings, quotes and a byte-order mark are tolerated")
  func tolerantParsing() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = try dir.write("w.csv", "\u{FEFF}\"ppg\"\r\n\"1.5\"\r\n2.25\r\n\r\n-3\r\n")
    let reader = try RecordingReader(path: path)
    #expect(reader.scale == 100)
    #expect(try reader.readAll().flatMap { $0.channels[0] } == [150, 225, -300])
  }

  @Test("The scale keeps the largest value under 2^29: one decimal fewer exactly at the limit, however it is written",
    arguments: [
      ("53687.0911", 10_000), ("53687.0912", 1_000), ("\"-53687.0912\" ", 1_000), ("+53687.0911", 10_000),
      (" 5.36870912e4", 1_000), ("12.5\n1e9", 1),
    ])
  func scaleAtTheHeadroomLimit(values: String, scale: Int32) throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = try dir.write("s.csv", "ppg\n1.0\n\(values)\n")
    #expect(try RecordingReader(path: path).scale == scale)
  }

  @Test("However a value is written, it reads as the same fixed-point number, across chunks and block sizes")
  func everyFormReadsTheSame() throws {
    // Plain lines take the one-pass lane, the rest the general parser; both must agree with the exact value.
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    // The first value fixes the scale at three decimals.
    let (path, expected) = try writeValues(in: dir, header: "ppg\n0.125", first: [125], seed: 12, blankEvery: 500) {
      generator in
      let n = Int32.random(in: -268_000_000...268_000_000, using: &generator)
      let magnitude = n.magnitude
      let whole = "\(magnitude / 1000)"
      let fraction = String("\(1000 + magnitude % 1000)".dropFirst())
      let sign = n < 0 ? "-" : ""
      let forms = [
        "\(sign)\(whole).\(fraction)", "\(sign)\(whole).\(fraction)0", "\(sign)\(whole).\(fraction)4",
        "\(sign)\(whole).\(fraction)\r", " \(sign)\(whole).\(fraction)", "\"\(sign)\(whole).\(fraction)\"",
        n < 0 ? "-0\(whole).\(fraction)" : "+\(whole).\(fraction)", "\(sign)\(whole).\(fraction)e0",
        magnitude % 1000 == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(fraction)",
      ]
      return (forms[Int.random(in: 0..<forms.count, using: &generator)], n)
    }
    try expectReads(path, as: expected, scale: 1000, blockSizes: [1 << 16, 777])
  }

  @Test("Raw counts read as they are written, eight bytes at a time or not, across chunks and block sizes")
  func rawCountsReadTheSame() throws {
    // Lines of one to seven digits and a newline take the 8-byte word; longer, signed, padded or last lines the
    // byte-wise parsers. Every form must give the same count.
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (path, expected) = try writeValues(in: dir, header: "ir", seed: 29, blankEvery: 700) { generator in
      let digits = Int.random(in: 1...10, using: &generator)
      var n = Int32(clamping: Int64.random(in: 0..<[1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000,
        100_000_000, 1_000_000_000, 2_147_483_647][digits], using: &generator))
      if Int.random(in: 0..<50, using: &generator) == 0 { n = -n }
      let sign = n < 0 ? "-" : ""
      let forms = ["\(n)", "\(n)", "\(n)", "\(n)\r", n < 0 ? "\(n)" : "+\(n)", "\(sign)00\(n.magnitude)", " \(n)",
        "\"\(n)\"", "\(n)\t", "\(n).0"]
      return (forms[Int.random(in: 0..<forms.count, using: &generator)], n)
    }
    try expectReads(path, as: expected, scale: 1, blockSizes: [1 << 16, 777, 5])
  }

  /// Writes `header`, then 150 000 values as `line` writes them (text, value), with a blank line about every
  /// `blankEvery`, into a file in `dir`; returns its path and the values (`first` before them).
  private func writeValues(
    in dir: TemporaryDirectory, header: String, first: [Int32] = [], seed: UInt64, blankEvery: Int,
    _ line: (inout SplitMix64) -> (String, Int32)
  ) throws -> (String, [Int32]) {
    var generator = SplitMix64(seed: seed)
    var lines = [header]
    var values = first
    for _ in 0..<150_000 {
      let (text, value) = line(&generator)
      lines.append(text)
      values.append(value)
      if Int.random(in: 0..<blankEvery, using: &generator) == 0 { lines.append("") }
    }
    return (try dir.write("values.csv", lines.joined(separator: "\n")), values)
  }

  /// Reads the gapless single-column file at `path` in each block size and expects `expected`, at `scale`.
  private func expectReads(_ path: String, as expected: [Int32], scale: Int32, blockSizes: [Int]) throws {
    for blockSize in blockSizes {
      let reader = try RecordingReader(path: path, readSidecar: false)
      #expect(reader.scale == scale)
      var read: [Int32] = []
      while let block = try reader.nextBlock(maxSamples: blockSize) {
        #expect(block.gapBefore == 0)
        read += block.channels[0]
      }
      #expect(read.count == expected.count)
      let firstDifference = read.indices.first { $0 < expected.count && read[$0] != expected[$0] }
      #expect(firstDifference == nil, "block size \(blockSize): line \((firstDifference ?? 0) + 2) reads differently")
    }
  }
}

/// Reading `text` as a recording (asking for `channels`) fails as bad data (65) with a message containing `expected`.
func expectBadData(_ text: String, channels: [String]?, saying expected: String) throws {
  let dir = try TemporaryDirectory()
  defer { dir.remove() }
  let path = try dir.write("x.csv", text)
  do {
    let reader = try RecordingReader(path: path, channels: channels, readSidecar: false)
    _ = try reader.readAll()
    Issue.record("no error for \(text)")
  } catch {
    #expect(error.description.contains(expected), "\(error.description)")
    #expect(error.sysexitCode == 65)
  }
}
