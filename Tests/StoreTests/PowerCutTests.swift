import CSQLiteCrashVFS
import Foundation
import Platform
import Store
import StressModel
import SyncWire
import TestSupport
import Testing

/// Power cuts, simulated below SQLite (Tests/CSQLiteCrashVFS): at a random write, truncate or sync the process
/// stops, and the files keep only what their last sync made durable, or a torn prefix of what followed. Unlike
/// the SIGKILL test (where the page cache survives), this drops what an fsync did not cover. Round after round
/// on the same file: the store is opened (WAL recovery), checked, written the way the daemon and the sync client
/// write, and cut again; one round in five is cut while it opens (recovery, migration).
@Suite("Crash safety: simulated power cuts", .serialized)
struct PowerCutTests {
  static let environment = ProcessInfo.processInfo.environment
  static let cuts = Int(environment["STRESSMON_POWER_CUTS"] ?? "") ?? 300

  /// What the store acknowledged: each of these must be in the file after any later cut.
  struct Acknowledged {
    var measurements = Set<String>()
    var uploaded = Set<String>()
    var quarantined = Set<String>()
    var ibis = 0
  }

  @Test("hundreds of cuts with durability full: integrity ok, no acknowledged row, upload mark or quarantine lost")
  func cutsKeepEveryCommit() throws {
    let fixture = try StoreFixture("power-cut")
    defer { fixture.directory.remove() }
    let seed = UInt64(Self.environment["STRESSMON_POWER_CUT_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64(UInt32.max))
    var random = SplitMix64(seed: seed)
    let name = "crashsim-store-\(seed)"
    let sim = try #require(crashsim_create(name, 1), "the crash VFS could not be registered")
    var options = MeasurementStore.Options(reserveBytes: 128 << 10)
    // A small reserve makes a small auto-checkpoint (64 pages), so cuts land inside checkpoints and WAL restarts.
    options.vfs = name
    var acknowledged = Acknowledged()
    var workload = Workload(seed: seed)
    var cutWhileOpening = 0
    for round in 0..<Self.cuts {
      let mode = round % 2 == 0 ? CRASHSIM_DROP_UNSYNCED : CRASHSIM_TORN_PREFIX
      // One round in five is cut within its first few writes: the open (the first creates and migrates the file)
      // and the first commits after a recovery.
      let early = round % 5 == 4
      crashsim_arm(sim, early ? Int64.random(in: 1...6, using: &random) : 0)
      let store: MeasurementStore
      do {
        store = try MeasurementStore(path: fixture.path, options: options)
      } catch {
        try #require(crashsim_crashed(sim) == 1, "open failed without a cut in round \(round) (seed \(seed)): \(error)")
        cutWhileOpening += 1
        try reboot(sim, mode: mode, random: &random)
        continue
      }
      try verify(store, acknowledged, round: round, seed: seed)
      if !early { crashsim_arm(sim, Int64.random(in: 1...300, using: &random)) }
      var steps = 0
      do {
        while steps < 10_000 {
          try workload.step(store, &acknowledged, round: round)
          steps += 1
        }
        Issue.record("round \(round) (seed \(seed)): no cut after \(steps) operations")
      } catch {
        try #require(crashsim_crashed(sim) == 1, "round \(round) (seed \(seed)) failed without a cut: \(error)")
      }
      store.close()
      try reboot(sim, mode: mode, random: &random)
    }
    let final = try MeasurementStore(path: fixture.path, options: options)
    try verify(final, acknowledged, round: Self.cuts, seed: seed)
    let stats = crashsim_get_stats(sim)
    final.close()
    #expect(stats.undone_operations > 0, "the cuts undid nothing: the simulation did not bite")
    print(
      "power cuts (store): \(Self.cuts) cuts (seed \(seed)), \(Self.cuts / 5) within the first writes "
        + "(\(cutWhileOpening) while opening); "
        + "\(acknowledged.measurements.count) measurements, \(acknowledged.ibis) IBIs, \(acknowledged.uploaded.count) "
        + "upload marks, \(acknowledged.quarantined.count) quarantines verified, 0 lost; \(stats.undone_operations) "
        + "unsynced writes undone (\(stats.restored_bytes) bytes), \(stats.syncs) syncs")
  }

  @Test("cuts with durability normal: the file is always sound (recent commits may go, nothing is corrupted)")
  func normalDurabilityStaysSound() throws {
    let fixture = try StoreFixture("power-cut-normal")
    defer { fixture.directory.remove() }
    let seed = UInt64(Self.environment["STRESSMON_POWER_CUT_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64(UInt32.max))
    var random = SplitMix64(seed: seed)
    let name = "crashsim-store-normal-\(seed)"
    let sim = try #require(crashsim_create(name, 1))
    var options = MeasurementStore.Options(durability: .normal, reserveBytes: 128 << 10)
    options.vfs = name
    var ignored = Acknowledged()
    var workload = Workload(seed: seed)
    for round in 0..<max(1, Self.cuts / 5) {
      let store = try MeasurementStore(path: fixture.path, options: options)
      #expect(try store.integrityCheck() == ["ok"], "round \(round) (seed \(seed))")
      _ = try store.measurements()
      crashsim_arm(sim, Int64.random(in: 1...300, using: &random))
      do {
        for _ in 0..<10_000 { try workload.step(store, &ignored, round: round) }
      } catch {
        try #require(crashsim_crashed(sim) == 1, "round \(round) (seed \(seed)) failed without a cut: \(error)")
      }
      store.close()
      try reboot(sim, mode: round % 2 == 0 ? CRASHSIM_DROP_UNSYNCED : CRASHSIM_TORN_PREFIX, random: &random)
    }
  }

  // MARK: - Helpers

  private func reboot(_ sim: OpaquePointer, mode: crashsim_mode, random: inout SplitMix64) throws {
    let changed = crashsim_reboot(sim, Int32(mode.rawValue), random.next())
    try #require(changed >= 0, "the crash VFS could not restore a file")
  }

  /// The file is sound and holds everything acknowledged so far.
  private func verify(_ store: MeasurementStore, _ acknowledged: Acknowledged, round: Int, seed: UInt64) throws {
    let context = "round \(round) (seed \(seed))"
    try #require(try store.integrityCheck() == ["ok"], "\(context)")
    var present = Set<String>()
    var uploaded = Set<String>()
    var quarantined = Set<String>()
    for row in try store.measurements() {
      present.insert(row.record.id)
      switch row.upload {
      case .uploaded: uploaded.insert(row.record.id)
      case .quarantined: quarantined.insert(row.record.id)
      default: break
      }
    }
    let lost = acknowledged.measurements.subtracting(present)
    #expect(lost.isEmpty, "\(context): \(lost.count) acknowledged measurements lost, e.g. \(lost.first ?? "")")
    let unmarked = acknowledged.uploaded.subtracting(uploaded)
    #expect(unmarked.isEmpty, "\(context): \(unmarked.count) upload marks lost")
    let released = acknowledged.quarantined.subtracting(quarantined)
    #expect(released.isEmpty, "\(context): \(released.count) quarantines lost")
    let ibis = try store.status().ibis
    #expect(ibis >= acknowledged.ibis, "\(context): \(ibis) IBIs, \(acknowledged.ibis) acknowledged")
  }
}

/// The writes of the daemon and the sync client, in random order: batched windows and beats (from an
/// unsynchronised clock that becomes synchronised, so corrections happen), upload marks taken from the outbox,
/// quarantines, baseline computations and checkpoints. Each call does one operation; what it returns from is
/// acknowledged.
struct Workload {
  var random: SplitMix64
  var monotonic = 10.0
  var synchronised = false
  var boot = 0
  var segment = 0

  init(seed: UInt64) {
    random = SplitMix64(seed: seed ^ 0x5EED)
  }

  mutating func reading() -> ClockReading {
    ClockReading(
      wall: (synchronised ? 1_700_000_000 : 1_000) + monotonic, monotonic: monotonic, bootId: "boot-\(boot)",
      synchronised: synchronised)
  }

  mutating func step(_ store: MeasurementStore, _ acknowledged: inout PowerCutTests.Acknowledged, round: Int) throws {
    let roll = random.unit()
    if roll < 0.65 {
      var records: [MeasurementRecord] = []
      var ibis: [IBIRecord] = []
      for _ in 0..<random.int(1...6) {
        monotonic += 10
        let now = reading()
        let hrv = 30 + 40 * random.unit()
        let hr = 55 + Double(random.int(0...40))
        let result = StressCalculator().result(hrvMs: hrv, heartRateBpm: hr, baseline: .default)
        records.append(MeasurementRecord(
          id: UUID().uuidString.lowercased(), deviceId: "power-cut", windowStart: now.wall - 60, windowEnd: now.wall,
          bootId: now.bootId, monotonicEnd: now.monotonic, clockSynchronised: now.synchronised,
          stressLevel: result.level, category: result.category, confidence: result.confidence, sdnnMs: hrv,
          rmssdMs: hrv * 0.8, heartRateBpm: hr, baselineHrvMs: 50, restingHeartRateBpm: 60, baselinePersonal: false,
          quality: .good, beats: 60, rejectedBeats: 1, modifiedAt: now.wall))
        for _ in 0..<random.int(0...12) {
          monotonic += 0.8
          if random.unit() < 0.02 { segment += 1 }
          let beat = reading()
          ibis.append(IBIRecord(
            wall: beat.wall, monotonic: beat.monotonic, bootId: beat.bootId, clockSynchronised: beat.synchronised,
            ibiMs: 600 + 400 * random.unit(), segment: segment))
        }
      }
      try store.write(records, ibis: ibis, clock: reading())
      acknowledged.measurements.formUnion(records.map(\.id))
      acknowledged.ibis += ibis.count
    } else if roll < 0.78 {
      let ids = try store.pendingUploads(limit: random.int(1...20)).map(\.id)
      try store.markUploaded(ids: ids, at: reading().wall)
      acknowledged.uploaded.formUnion(ids)
    } else if roll < 0.83 {
      synchronised = true
      try store.observeClock(reading())
    } else if roll < 0.86 {
      // A reboot of the board: a new boot id, the clock unsynchronised again until NTP.
      boot += 1
      monotonic = 5
      synchronised = false
      try store.observeClock(reading())
    } else if roll < 0.90 {
      try store.recomputeBaseline(now: reading().wall)
    } else if roll < 0.94 {
      try store.checkpoint()
    } else if let id = acknowledged.measurements.randomElement(using: &random),
      !acknowledged.uploaded.contains(id)
    {
      try store.quarantine(id: id, reason: "power-cut test 422", at: reading().wall)
      acknowledged.quarantined.insert(id)
    }
  }
}
