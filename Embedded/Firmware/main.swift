import Analysis
import PulseDSP
import StressModel

// The QEMU check's firmware (docs/embedded.md): reads a recording's samples from the host through semihosting,
// runs the same `PulseAnalyzer` chain as `stressmon analyze` (detector → IBI cleaning → HRV windows → stress),
// and writes every event for the host to compare bit for bit. Then it runs the detector alone over the same
// samples, as `analyze --benchmark-detector` does, and reports both instruction counts and the memory used.
//
// Command line (semihosting): `firmware INPUT OUTPUT`, or `firmware --layout OUTPUT` to write only the core's
// state sizes (scripts/build-embedded). Exit status: 0, 64 usage, 65 bad input, 73 cannot write.

func fail(_ message: StaticString, _ status: Int32) -> Never {
  // A StaticString's bytes are a NUL-terminated literal.
  fw_console(UnsafeRawPointer(message.utf8Start).assumingMemoryBound(to: CChar.self))
  fw_exit(status)
}

let arguments = HostFile.arguments()
guard arguments.count >= 3 else { fail("firmware: usage: firmware INPUT OUTPUT (semihosting arguments)\n", 64) }
if arguments[1] == Array("--layout".utf8) {
  guard let file = HostFile(path: arguments[2], write: true) else {
    fail("firmware: cannot create the output file\n", 73)
  }
  var layout = EventWriter(file: file)
  layout.writeLayout()
  layout.flush()
  file.close()
  fw_exit(0)
}
guard let inputFile = HostFile(path: arguments[1], write: false), let input = FirmwareInput(file: inputFile) else {
  fail("firmware: cannot read the input file (see Tests/EmbeddedTests/FirmwareInput.swift for its format)\n", 65)
}
inputFile.close()
guard let outputFile = HostFile(path: arguments[2], write: true) else {
  fail("firmware: cannot create the output file\n", 73)
}
var writer = EventWriter(file: outputFile)

let polarity: PulsePolarity = input.inverted ? .inverted : .normal
let windows = HRVWindowConfiguration(lengthSeconds: input.windowSeconds, stepSeconds: input.stepSeconds)
var events: [AnalysisEvent] = []
events.reserveCapacity(512)
let heapBefore = fw_heap_peak()
let heapInUseBefore = fw_heap_in_use()

// The whole chain, timed around the processing only (the events are buffered and written between blocks).
var analysisTicks: UInt32 = 0
var analyzer: PulseAnalyzer
do {
  analyzer = try PulseAnalyzer(rateHz: input.rateHz, polarity: polarity, configuration: .init(windows: windows))
} catch {
  fail("firmware: the detector does not support this sample rate\n", 65)
}
// Samples go in as a sensor's FIFO reads hand them over, `fifoDepth` at a time (the host test cuts them the
// same way), so the events of one read stay few and the heap's high-water mark is the core's own. The counter
// runs freely; each read's ticks are a difference of two readings, so rounding to a tick does not accumulate.
let fifoDepth = 32
fw_counter_start()
for block in input.blocks {
  block.samples.withUnsafeBufferPointer { samples in
    var start = 0
    repeat {
      let end = min(start + fifoDepth, samples.count)
      let before = fw_counter_ticks()
      let read = UnsafeBufferPointer(rebasing: samples[start..<end])
      analyzer.process(block: read, gapBefore: start == 0 ? block.gapBefore : 0) { events.append($0) }
      analysisTicks &+= fw_counter_ticks() &- before
      for event in events { writer.write(event) }
      events.removeAll(keepingCapacity: true)
      start = end
    } while start < samples.count
  }
}
// What the core keeps on the heap in its steady state (the energy buffer, the cleaner's and the window's
// intervals), after the last read.
let analysisHeapLive = fw_heap_in_use() - heapInUseBefore
analyzer.finish { events.append($0) }
for event in events { writer.write(event) }
let analysisHeap = fw_heap_peak() - heapBefore

// The detector alone, as the Linux benchmark's `timedDetection` (callgrind's instructions per sample).
fw_counter_start()
var detectorBeats: Int64 = 0
do {
  let configuration = BeatDetectorConfiguration(sampleRateHz: input.rateHz, polarity: polarity)
  var detector = try BeatDetector(configuration: configuration)
  for block in input.blocks {
    if block.gapBefore > 0 { detector.reset(gap: block.gapBefore) }
    block.samples.withUnsafeBufferPointer { samples in
      detector.process(samples) { if case .beat = $0 { detectorBeats += 1 } }
    }
  }
} catch {
  fail("firmware: the detector does not support this sample rate\n", 65)
}
let detectorTicks = fw_counter_ticks()

writer.field("E samples", Int64(input.sampleCount))
writer.field("stream_samples", analyzer.streamSamples)
writer.field("beats", Int64(analyzer.beatCount))
writer.field("analysis_ticks", Int64(analysisTicks))
writer.field("detector_ticks", Int64(detectorTicks))
writer.field("detector_beats", detectorBeats)
writer.field("instructions_per_tick", Int64(fw_instructions_per_tick()))
// A loop of exactly 2 000 000 instructions: the host checks that the counter really counts instructions.
writer.field("calibration_ticks", Int64(fw_calibration_ticks(1_000_000)))
writer.field("analysis_heap_bytes", Int64(analysisHeap))
writer.field("analysis_heap_live_bytes", Int64(analysisHeapLive))
writer.newline()
writer.writeLayout()
writer.flush()
outputFile.close()
fw_exit(0)
