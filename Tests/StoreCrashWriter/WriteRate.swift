// `store-crash-writer write-rate`: measures what the store writes at the daemon's rate (one window result every
// 10 s, one IBI per heart beat), through the same buffered StoreWriter the daemon uses. See docs/store.md.
//
//   store-crash-writer write-rate DB [--hours H] [--realtime] [--flush S] [--durability full|normal]
//                                    [--rr FILE.csv]
//
// Simulated (default): an injected clock runs the hours as fast as the disk allows; the byte counts that do
// not depend on timing (write() calls and bytes handed to the kernel, fdatasync count, file growth) are exact.
// --realtime: the same at wall-clock pace, so /proc/self/io write_bytes also shows what the kernel's writeback
// actually sends to the device (with durability normal it coalesces commits for up to ~30 s).
import FoundationEssentials
import Platform
import Store
import StressModel
import SyncWire
import Synchronization

/// A clock the benchmark advances itself (simulated mode), or the real one.
final class BenchClock: StoreClock {
  private let state: Mutex<ClockReading>
  init(start: ClockReading) { state = Mutex(start) }
  func reading() -> ClockReading { state.withLock { $0 } }
  func advance(_ seconds: Double) {
    state.withLock {
      $0.wall += seconds
      $0.monotonic += seconds
    }
  }
}

enum WriteRate {
  static func run(_ arguments: [String]) -> Never {
    var path: String?
    var hours = 1.0
    var realtime = false
    var flush = 2.0
    var durability = MeasurementStore.Durability.full
    var rr: [Double] = []
    var pageSize = MeasurementStore.Options().pageSize
    var timeOrderedIds = false
    var unsynchronised = false
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      let value = index + 1 < arguments.count ? arguments[index + 1] : ""
      switch argument {
      case "--hours": hours = Double(value) ?? hours; index += 1
      case "--flush": flush = Double(value) ?? flush; index += 1
      case "--durability": durability = MeasurementStore.Durability(rawValue: value) ?? durability; index += 1
      case "--realtime": realtime = true
      case "--unsynchronised": unsynchronised = true
      case "--time-ordered-ids": timeOrderedIds = true
      case "--page-size": pageSize = Int(value) ?? pageSize; index += 1
      case "--rr":
        let text = String(decoding: FileManager.default.contents(atPath: value) ?? Data(), as: UTF8.self)
        rr = text.split(separator: "\n").compactMap { Double($0.filter { !$0.isWhitespace }) }
        index += 1
      default: path = argument
      }
      index += 1
    }
    guard let path else {
      emit("usage: store-crash-writer write-rate DB [--hours H] [--realtime] [--flush S] [--durability full|normal]\n")
      exit(64)
    }
    if rr.isEmpty { rr = (0..<1000).map { 850 + 150 * sin(Double($0) / 7) } }

    let start = ClockReading(wall: 1_714_521_600, monotonic: 100, bootId: "bench-boot", synchronised: true)
    let benchClock = BenchClock(start: start)
    // This machine's clock may not be NTP-synchronised (containers often are not); the daemon's steady state is,
    // and unsynchronised rows cost extra index pages until corrected, so real-time runs assume a synchronised
    // clock unless --unsynchronised is given.
    let clock: any StoreClock = realtime ? SystemStoreClock(assumeSynchronised: !unsynchronised) : benchClock
    var options = MeasurementStore.Options(durability: durability)
    options.pageSize = pageSize
    let writer = StoreWriter(
      path: path, clock: clock, options: options,
      policy: StoreWriter.Policy(maxDelaySeconds: flush))
    // Counting starts after a warm-up (file creation, schema, first checkpoint) and stops before the final
    // close, so the figures are the steady state of a long-running daemon.
    let warmup = realtime ? 60.0 : 3600.0
    var warmedUp: ProcIO?
    var counted = (start: 0.0, commits: 0, fileBytes: Int64(0))
    let first = clock.reading()
    var sinceWindow = 0.0
    var elapsed = 0.0
    var beats = 0
    var windows = 0
    var commits = 0
    var lastCommit: Double?
    var recent: [Double] = []
    while elapsed < hours * 3600 + warmup {
      if warmedUp == nil && elapsed >= warmup {
        warmedUp = ProcIO.read()
        counted = (elapsed, commits, fileSize(path) + fileSize(path + "-wal"))
      }
      let interval = rr[beats % rr.count]
      if realtime { usleep(UInt32(interval * 1000)) } else { benchClock.advance(interval / 1000) }
      elapsed = clock.reading().monotonic - first.monotonic
      sinceWindow += interval / 1000
      beats += 1
      recent.append(interval)
      if recent.count > 80 { recent.removeFirst() }
      let now = clock.reading()
      var health = writer.append([
        IBIRecord(
          wall: now.wall, monotonic: now.monotonic, bootId: now.bootId, clockSynchronised: now.synchronised,
          ibiMs: interval, segment: 0)
      ])
      if sinceWindow >= 10 {
        sinceWindow = 0
        windows += 1
        let metrics = HRVMetrics(intervalsMs: recent)!
        let result = StressCalculator().result(hrvMs: metrics.sdnnMs, heartRateBpm: metrics.meanHeartRateBpm, baseline: .default)
        health = writer.append(
          MeasurementRecord(
            id: timeOrderedIds ? uuidV7(wall: now.wall) : UUID().uuidString.lowercased(), deviceId: "bench", windowStart: now.wall - 60, windowEnd: now.wall,
            bootId: now.bootId, monotonicEnd: now.monotonic, clockSynchronised: now.synchronised,
            stressLevel: result.level, category: result.category, confidence: result.confidence, sdnnMs: metrics.sdnnMs,
            rmssdMs: metrics.rmssdMs, heartRateBpm: metrics.meanHeartRateBpm, baselineHrvMs: 50,
            restingHeartRateBpm: 60, baselinePersonal: false, quality: .good, beats: recent.count, rejectedBeats: 0,
            modifiedAt: now.wall))
      }
      if let last = health.lastCommitMonotonic, last != lastCommit {
        commits += 1
        lastCommit = last
      }
    }
    let after = ProcIO.read()
    let before = warmedUp ?? after
    let fileBytes = fileSize(path) + fileSize(path + "-wal") - counted.fileBytes
    commits -= counted.commits
    elapsed -= counted.start
    writer.close()
    let perHour = 3600 / elapsed
    emit(
      """
      {"mode":"\(realtime ? "realtime" : "simulated")","page_size":\(pageSize),"time_ordered_ids":\(timeOrderedIds),"durability":"\(durability.rawValue)","clock_synchronised":\(clock.reading().synchronised),"flush_s":\(flush),\
      "hours":\((elapsed / 3600).formatted(decimals: 3)),"beats":\(beats),"windows":\(windows),"commits":\(commits),\
      "commits_per_hour":\((Double(commits) * perHour).formatted(decimals: 0)),\
      "write_calls_per_hour":\((Double(after.syscw - before.syscw) * perHour).formatted(decimals: 0)),\
      "bytes_written_per_hour":\((Double(after.wchar - before.wchar) * perHour).formatted(decimals: 0)),\
      "device_write_bytes_per_hour":\((Double(after.writeBytes - before.writeBytes) * perHour).formatted(decimals: 0)),\
      "database_growth_bytes":\(fileBytes),"database_bytes_per_hour":\((Double(fileBytes) * perHour).formatted(decimals: 0))}

      """)
    exit(0)
  }

  /// RFC 9562 UUID version 7: 48-bit Unix milliseconds, then random bits. Sorts by time, so the store's id
  /// index grows at its right edge instead of touching a random page per insert.
  static func uuidV7(wall: Double) -> String {
    var bytes = (0..<16).map { _ in UInt8.random(in: 0...255) }
    let ms = UInt64(wall * 1000)
    for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: ms >> (8 * (5 - UInt64(i)))) }
    bytes[6] = 0x70 | (bytes[6] & 0x0F)
    bytes[8] = 0x80 | (bytes[8] & 0x3F)
    let hex = bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
    return parts.map(String.init).joined(separator: "-")
  }

  static func fileSize(_ path: String) -> Int64 {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : 0
  }
}

/// `/proc/self/io`: wchar = bytes passed to write calls; syscw = write calls; write_bytes = bytes this process
/// caused to be sent to the storage layer (page-cache pages it dirtied, counted once until written back).
struct ProcIO {
  var wchar: Int64 = 0
  var syscw: Int64 = 0
  var writeBytes: Int64 = 0

  static func read() -> ProcIO {
    var io = ProcIO()
    let text = String(decoding: FileManager.default.contents(atPath: "/proc/self/io") ?? Data(), as: UTF8.self)
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: ":")
      guard parts.count == 2, let value = Int64(parts[1].filter { !$0.isWhitespace }) else { continue }
      switch parts[0] {
      case "wchar": io.wchar = value
      case "syscw": io.syscw = value
      case "write_bytes": io.writeBytes = value
      default: break
      }
    }
    return io
  }
}
