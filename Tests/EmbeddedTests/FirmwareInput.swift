import Foundation
import PulseDSP
import Signals
import StressModel

/// The QEMU firmware's input file (Embedded/Firmware/HostFile.swift reads it): a 40-byte header ("SMQ1",
/// polarity 0 normal / 1 inverted, the bit patterns of the rate, window length and step, 8 bytes padding), then
/// each block as (samples lost before it, count, samples), all little-endian.
struct FirmwareInput {
  var rateHz: Double
  var polarity: PulsePolarity
  var windows: HRVWindowConfiguration
  var blocks: [RecordingBlock]

  var bytes: Data {
    var data = Data()
    func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    data.append(contentsOf: Array("SMQ1".utf8))
    append(UInt32(polarity == .inverted ? 1 : 0))
    append(rateHz.bitPattern)
    append(windows.lengthSeconds.bitPattern)
    append(windows.stepSeconds.bitPattern)
    append(UInt64(0))
    for block in blocks {
      append(Int32(block.gapBefore))
      append(Int32(block.channels[0].count))
      for sample in block.channels[0] { append(sample) }
    }
    return data
  }
}
