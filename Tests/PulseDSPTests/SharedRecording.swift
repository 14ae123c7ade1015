import PulseDSP
import Signals
import TestSupport

/// A shared real recording as the detector sees it: the sidecar's start-up samples dropped (they are a
/// leading gap on the stream timeline), the rest as one contiguous array.
struct SharedRecording {
  let name: String
  let rateHz: Double
  let polarity: PulsePolarity
  /// Leading samples skipped (the stream position of `samples[0]`).
  let skipped: Int
  let samples: [Int32]
  /// Reference beats (stream sample indices) when the sidecar has them.
  let reference: [Int]
  let referenceKind: String

  /// Every recording in the shared data set (14), by file name.
  static let names = [
    "bsn_bvp_motion_artifact", "bsn_bvp_rest", "bsn_bvp_sample", "bsn_fspo2_chn1", "bsn_fspo2_chn2",
    "bsn_hspo2_ch10", "bsn_hspo2_ch9", "e2epyppg_201902020222", "heartpy_data", "heartpy_data2", "heartpy_data3",
    "nova_bvp", "pyphysio_medical", "systole_ppg",
  ]

  static func load(_ name: String) throws -> SharedRecording {
    let reader = try RecordingReader(path: try SharedData.path(name + ".csv"))
    var samples: [Int32] = []
    var skipped = 0
    for block in try reader.readAll() {
      if samples.isEmpty { skipped = block.gapBefore }
      samples += block.channels[0]
    }
    let sidecar = reader.sidecar
    return SharedRecording(
      name: name, rateHz: sidecar?.fs ?? 0, polarity: sidecar?.polarity == .inverted ? .inverted : .normal,
      skipped: skipped, samples: samples, reference: sidecar?.beats ?? [], referenceKind: sidecar?.reference ?? "none")
  }

  /// Runs a fresh detector over the recording; returns the beats and the quality changes.
  func detect(
    configuration: BeatDetectorConfiguration? = nil, samples override: [Int32]? = nil
  ) throws -> (beats: [DetectedBeat], qualities: [(SignalQuality, Int64)]) {
    var detector = try BeatDetector(configuration: configuration ?? BeatDetectorConfiguration(sampleRateHz: rateHz, polarity: polarity))
    var beats: [DetectedBeat] = []
    var qualities: [(SignalQuality, Int64)] = []
    if skipped > 0 { detector.reset(gap: skipped) }
    detector.process(override ?? samples) { event in
      switch event {
      case .beat(let beat):
        // A beat that replaces the one before it (BeatDetector+Replace.swift) takes its place.
        if beat.replacesPrevious, let last = beats.lastIndex(where: { !$0.recovered }) { beats.remove(at: last) }
        beats.append(beat)
      case .quality(let quality, let at, _): qualities.append((quality, at))
      }
    }
    return (beats, qualities)
  }
}
