import Analysis
import PulseDSP
import Signals
import StressModel
import TestSupport

/// Runs a shared recording through `PulseAnalyzer` block by block, as `stressmon analyze` does.
struct RecordingRun {
  let name: String
  let rateHz: Double
  let polarity: PulsePolarity
  let sidecar: RecordingSidecar?
  let events: [AnalysisEvent]
  let record: AnalysisRecord
  let streamSamples: Int64

  /// Every recording in the shared data set (14).
  static let names = [
    "bsn_bvp_motion_artifact", "bsn_bvp_rest", "bsn_bvp_sample", "bsn_fspo2_chn1", "bsn_fspo2_chn2",
    "bsn_hspo2_ch10", "bsn_hspo2_ch9", "e2epyppg_201902020222", "heartpy_data", "heartpy_data2", "heartpy_data3",
    "nova_bvp", "pyphysio_medical", "systole_ppg",
  ]

  /// The recording's blocks as the reader gives them (`blockSize` samples at most).
  static func blocks(_ name: String, blockSize: Int = 1 << 16) throws -> (RecordingReader, [RecordingBlock]) {
    let reader = try RecordingReader(path: try SharedData.path(name + ".csv"))
    var blocks: [RecordingBlock] = []
    while let block = try reader.nextBlock(maxSamples: blockSize) { blocks.append(block) }
    return (reader, blocks)
  }

  static func run(
    _ name: String, blockSize: Int = 1 << 16, configuration: PulseAnalyzer.Configuration = .init(),
    baseline: PersonalBaseline = .default, transform: (([RecordingBlock]) -> [RecordingBlock])? = nil
  ) throws -> RecordingRun {
    let (reader, original) = try blocks(name, blockSize: blockSize)
    let blocks = transform?(original) ?? original
    let rate = reader.sidecar?.fs ?? 0
    let polarity: PulsePolarity = reader.sidecar?.polarity == .inverted ? .inverted : .normal
    var analyzer = try PulseAnalyzer(rateHz: rate, polarity: polarity, configuration: configuration, baseline: baseline)
    var events: [AnalysisEvent] = []
    var record = AnalysisRecord()
    for block in blocks {
      analyzer.process(block: block.channels[0], gapBefore: block.gapBefore) {
        events.append($0)
        record.add($0)
      }
    }
    analyzer.finish {
      events.append($0)
      record.add($0)
    }
    return RecordingRun(
      name: name, rateHz: rate, polarity: polarity, sidecar: reader.sidecar, events: events, record: record,
      streamSamples: analyzer.streamSamples)
  }

  var durationSeconds: Double { Double(streamSamples) / rateHz }
}
