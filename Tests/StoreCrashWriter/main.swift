// Test-only writer for the SIGKILL crash test (Tests/StoreTests/StoreCrashTests.swift, scripts/crash-test).
//
// Writes to the store as fast as it can, mixing every kind of write the daemon and the sync client do (batched
// inserts, clock correction, upload marks, quarantine, baseline, checkpoints), and after each committed
// operation prints what is now durable on stdout, unbuffered:
//   M <id>   measurement committed        U <id>   marked uploaded        Q <id>   quarantined
//   I <n>    n IBIs committed
// The parent kills it with SIGKILL at a random moment and checks that everything printed is in the file.
//
// Usage: store-crash-writer DB SEED BOOT_ID MONOTONIC_START
//        store-crash-writer write-rate DB …   (bytes written per hour at the daemon's rate: WriteRate.swift)
import FoundationEssentials
import Logging
import Platform
import Store
import StressModel
import SyncWire

func emit(_ text: String) {
  var bytes = Array(text.utf8)
  var offset = 0
  while offset < bytes.count {
    let n = bytes.withUnsafeMutableBufferPointer { write(1, $0.baseAddress! + offset, $0.count - offset) }
    if n <= 0 { exit(3) }
    offset += n
  }
}

// stdout is the protocol channel: logs go nowhere.
LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }

let arguments = CommandLine.arguments
if arguments.count > 1 && arguments[1] == "write-rate" { WriteRate.run(Array(arguments.dropFirst(2))) }
guard arguments.count == 5, let seed = UInt64(arguments[2]), let monotonicStart = Double(arguments[4]) else {
  emit("usage: store-crash-writer DB SEED BOOT_ID MONOTONIC_START\n")
  exit(64)
}
let path = arguments[1]
let bootId = arguments[3]
var random = SplitMix64(seed: seed)
let durability = MeasurementStore.Durability(
  rawValue: ProcessInfo.processInfo.environment["STRESSMON_CRASH_DURABILITY"] ?? "") ?? MeasurementStore.Options().durability

let store: MeasurementStore
do {
  store = try MeasurementStore(path: path, options: MeasurementStore.Options(durability: durability))
} catch {
  emit("E \(error)\n")
  exit(74)
}

// The clock: unsynchronised (a 1970 wall clock) until a random step, then synchronised: corrections happen.
var monotonic = monotonicStart
var synchronised = random.unit() < 0.3
@MainActor func reading() -> ClockReading {
  ClockReading(
    wall: (synchronised ? 1_700_000_000 : 1_000) + monotonic, monotonic: monotonic, bootId: bootId,
    synchronised: synchronised)
}

let hrvSeries = (0..<64).map { 30 + 40 * Double($0 % 7) / 6 }
var committed: [String] = []
var segment = 0
while true {
  // A short, random pause between operations: the kill lands in every phase (open, transaction, checkpoint,
  // idle) rather than almost always inside a write.
  if random.unit() < 0.5 { usleep(UInt32(random.int(0...2_000))) }
  let roll = random.unit()
  do {
    if roll < 0.70 {
      var records: [MeasurementRecord] = []
      var ibis: [IBIRecord] = []
      for _ in 0..<random.int(1...8) {
        monotonic += 10
        let now = reading()
        let hrv = hrvSeries[random.int(0...63)]
        let hr = 55 + Double(random.int(0...40))
        let result = StressCalculator().result(hrvMs: hrv, heartRateBpm: hr, baseline: .default)
        records.append(
          MeasurementRecord(
            id: UUID().uuidString.lowercased(), deviceId: "crash-test", windowStart: now.wall - 60, windowEnd: now.wall,
            bootId: bootId, monotonicEnd: now.monotonic, clockSynchronised: now.synchronised, stressLevel: result.level,
            category: result.category, confidence: result.confidence, sdnnMs: hrv, rmssdMs: hrv * 0.8,
            heartRateBpm: hr, baselineHrvMs: 50, restingHeartRateBpm: 60, baselinePersonal: false, quality: .good,
            beats: 60, rejectedBeats: 1, modifiedAt: now.wall))
        for _ in 0..<random.int(0...12) {
          monotonic += 0.8
          if random.unit() < 0.02 { segment += 1 }
          let beat = reading()
          ibis.append(
            IBIRecord(
              wall: beat.wall, monotonic: beat.monotonic, bootId: bootId, clockSynchronised: beat.synchronised,
              ibiMs: 600 + 400 * random.unit(), segment: segment))
        }
      }
      try store.write(records, ibis: ibis, clock: reading())
      committed.append(contentsOf: records.map(\.id))
      emit(records.map { "M \($0.id)\n" }.joined() + "I \(ibis.count)\n")
    } else if roll < 0.80 {
      // As the sync client does: take a batch from the outbox, then acknowledge it.
      let ids = try store.pendingUploads(limit: random.int(1...20)).map(\.id)
      try store.markUploaded(ids: ids, at: reading().wall)
      emit(ids.map { "U \($0)\n" }.joined())
    } else if roll < 0.85 {
      synchronised = true
      try store.observeClock(reading())
    } else if roll < 0.90 {
      try store.recomputeBaseline(now: reading().wall)
    } else if roll < 0.95 {
      try store.checkpoint()
    } else if !committed.isEmpty {
      let id = committed[random.int(0...committed.count - 1)]
      try store.quarantine(id: id, reason: "crash test 422", at: reading().wall)
      emit("Q \(id)\n")
    }
  } catch {
    emit("E \(error)\n")
    exit(74)
  }
}
