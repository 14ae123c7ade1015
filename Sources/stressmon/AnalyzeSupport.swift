import Platform
import PulseDSP
import Signals

/// A progress bar on stderr for long files, only when stderr is a terminal (never in pipes, logs or tests).
struct ProgressBar {
  /// Files smaller than this finish before a bar is worth drawing.
  static let minimumBytes: Int64 = 8 << 20

  private var enabled: Bool
  private var estimatedRows: Double = 1
  private var rows = 0
  private var shownPercent = -1

  init(path: String, enabled: Bool) {
    self.enabled = false
    guard enabled else { return }
    var info = stat()
    guard stat(path, &info) == 0, Int64(info.st_size) >= Self.minimumBytes else { return }
    // Rows ≈ file size / bytes per row of the first 64 KiB.
    guard let file = try? FileDescriptor.open(path, .readOnly) else { return }
    defer { try? file.close() }
    var head = [UInt8](repeating: 0, count: 1 << 16)
    guard let got = try? head.withUnsafeMutableBytes({ raw in try file.read(into: raw) }), got > 0 else { return }
    let newlines = head[0..<got].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    guard newlines > 1 else { return }
    estimatedRows = Double(info.st_size) / (Double(got) / Double(newlines))
    self.enabled = true
  }

  mutating func advance(by count: Int) {
    guard enabled else { return }
    rows += count
    let percent = min(99, Int(Double(rows) / estimatedRows * 100))
    guard percent != shownPercent else { return }
    shownPercent = percent
    let width = 40
    let filled = width * percent / 100
    draw("\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] \(percent) %")
  }

  mutating func finish() {
    guard enabled else { return }
    enabled = false
    draw("\r" + String(repeating: " ", count: 50) + "\r")
  }

  private func draw(_ text: String) {
    try? FileDescriptor.standardError.writeAll(text.utf8)
  }
}

/// `analyze --benchmark-detector RUNS` (hidden, for scripts/bench): the detector alone over the recording
/// held in memory, CSV parsing excluded. Prints samples per second as JSON.
enum HotLoopBenchmark {
  static func run(reader: RecordingReader, rateHz: Double, polarity: PulsePolarity, runs: Int) throws {
    var blocks: [RecordingBlock] = []
    while let block = try AnalyzeCommand.recording({ try reader.nextBlock() }) { blocks.append(block) }
    let samples = blocks.reduce(0) { $0 + $1.count }
    let configuration = BeatDetectorConfiguration(sampleRateHz: rateHz, polarity: polarity)
    var beats = 0
    let start = now()
    for _ in 0..<max(1, runs) {
      beats = try AnalyzeCommand.detector { try timedDetection(blocks, configuration) }
    }
    let seconds = now() - start
    let total = Double(samples) * Double(max(1, runs))
    CLIOutput.line(
      "{\"samples\": \(samples), \"runs\": \(max(1, runs)), \"seconds\": \(seconds), "
        + "\"samples_per_s\": \(seconds > 0 ? total / seconds : 0), \"beats\": \(beats)}")
  }

  /// The measured loop (scripts/bench points callgrind's --toggle-collect at this function).
  @inline(never)
  static func timedDetection(
    _ blocks: [RecordingBlock], _ configuration: BeatDetectorConfiguration
  ) throws(BeatDetectorError) -> Int {
    var detector = try BeatDetector(configuration: configuration)
    var beats = 0
    for block in blocks {
      if block.gapBefore > 0 { detector.reset(gap: block.gapBefore) }
      detector.process(block.channels[0]) { if case .beat = $0 { beats += 1 } }
    }
    return beats
  }

  static func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
  }
}

/// Reads the recording on a second thread while the calling thread analyses, so that CSV parsing and
/// analysis overlap on two cores (each takes about half of `analyze`'s time on a 100 Hz recording).
/// Bounded: at most `capacity` blocks wait, so a fast reader never loads the whole file.
///
/// Locking: `queue`, `finished`, `failure` and `cancelled` are read and written only with `mutex` held;
/// `changed` is signalled on every change. The reader is used only by the producer thread once `start()`
/// has been called. Hence `@unchecked Sendable`.
final class BlockPipe: @unchecked Sendable {
  private let reader: RecordingReader
  private let capacity: Int
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private var queue: [RecordingBlock] = []
  private var head = 0
  private var finished = false
  private var cancelled = false
  private var failure: RecordingError?
  private var thread: pthread_t?

  init(reader: RecordingReader, capacity: Int = 4) {
    self.reader = reader
    self.capacity = max(1, capacity)
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(changed, nil)
  }

  deinit {
    stop()
    pthread_cond_destroy(changed)
    pthread_mutex_destroy(mutex)
    changed.deallocate()
    mutex.deallocate()
  }

  /// Starts the reading thread; if a thread cannot be created, `next()` reads on the caller's thread. The
  /// thread holds no reference of its own: `deinit` stops and joins it before the pipe goes away.
  func start() {
    let context = Unmanaged.passUnretained(self).toOpaque()
    var created = pthread_t()
    let status = pthread_create(&created, nil, { context in
      Unmanaged<BlockPipe>.fromOpaque(context!).takeUnretainedValue().produce()
      return nil
    }, context)
    if status == 0 { thread = created }
  }

  /// The next block in order; nil at the end. Rethrows the reader's error at the point it happened.
  func next() throws(RecordingError) -> RecordingBlock? {
    guard thread != nil else { return try reader.nextBlock() }
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    while head == queue.count && !finished { pthread_cond_wait(changed, mutex) }
    if head < queue.count {
      let block = queue[head]
      head += 1
      if head == queue.count {
        queue.removeAll(keepingCapacity: true)
        head = 0
      }
      pthread_cond_broadcast(changed)
      return block
    }
    if let failure { throw failure }
    return nil
  }

  /// Stops the reading thread (early exit) and waits for it.
  func stop() {
    guard let running = thread else { return }
    pthread_mutex_lock(mutex)
    cancelled = true
    pthread_cond_broadcast(changed)
    pthread_mutex_unlock(mutex)
    pthread_join(running, nil)
    thread = nil
  }

  private func produce() {
    while true {
      let block: RecordingBlock?
      var error: RecordingError?
      do { block = try reader.nextBlock() } catch let e { block = nil; error = e }
      pthread_mutex_lock(mutex)
      while queue.count - head >= capacity && !cancelled { pthread_cond_wait(changed, mutex) }
      if cancelled {
        pthread_mutex_unlock(mutex)
        return
      }
      if let block {
        queue.append(block)
      } else {
        failure = error
        finished = true
      }
      pthread_cond_broadcast(changed)
      pthread_mutex_unlock(mutex)
      if block == nil { return }
    }
  }
}
