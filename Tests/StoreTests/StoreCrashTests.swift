import Foundation
import Platform
import Store
import StressModel
import TestSupport
import Testing

@testable import Store

/// The SIGKILL crash test: a writer process (Tests/StoreCrashWriter) hammers the store with every kind of write
/// and prints what it committed; it is killed at a random moment, and the file must then pass
/// `PRAGMA integrity_check` and hold everything the writer reported. Repeated on the same file, so later rounds
/// also recover from earlier crashes. CI runs a short form; `scripts/crash-test N` runs N kills.
@Suite("Crash safety: SIGKILL at random moments", .serialized)
struct StoreCrashTests {
  static let environment = ProcessInfo.processInfo.environment
  static let kills = Int(environment["STRESSMON_CRASH_KILLS"] ?? "") ?? 15
  static let maxDelayMs = Int(environment["STRESSMON_CRASH_MAX_DELAY_MS"] ?? "") ?? 300

  struct Reported {
    var measurements = Set<String>()
    var uploaded = Set<String>()
    var quarantined = Set<String>()
    var ibis = 0
    var errors: [String] = []
  }

  @Test("Killed with SIGKILL again and again: integrity_check is ok and every reported commit is there")
  func sigkill() throws {
    let fixture = try StoreFixture("crash")
    defer { fixture.directory.remove() }
    let writer = CLIRunner.productsDirectory + "/store-crash-writer"
    try #require(FileManager.default.isExecutableFile(atPath: writer), "build the store-crash-writer product first")
    let seed = UInt64(Self.environment["STRESSMON_CRASH_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64(UInt32.max))
    var random = SplitMix64(seed: seed)
    var reported = Reported()
    var killedBeforeFirstCommit = 0
    var killedWithCommits = 0
    for round in 0..<Self.kills {
      // Four rounds per "boot": restarts within a boot (corrections continue) and new boots (unresolved rows).
      let output = try runAndKill(
        writer, arguments: [fixture.path, String(seed &+ UInt64(round)), "boot-\(round / 4)", String(round * 100_000)],
        afterMs: Int.random(in: 0...Self.maxDelayMs, using: &random))
      let before = reported.measurements.count
      parse(output, into: &reported)
      if reported.measurements.count == before { killedBeforeFirstCommit += 1 } else { killedWithCommits += 1 }
      try #require(reported.errors.isEmpty, "writer failed in round \(round) (seed \(seed)): \(reported.errors)")
      try verify(fixture.path, reported, round: round, seed: seed)
    }
    print(
      "crash test: \(Self.kills) SIGKILLs (seed \(seed)), \(killedWithCommits) mid-run, \(killedBeforeFirstCommit) "
        + "before the first commit; \(reported.measurements.count) measurements, \(reported.ibis) IBIs, "
        + "\(reported.uploaded.count) upload marks, \(reported.quarantined.count) quarantines verified")
  }

  /// Starts the writer, kills it with SIGKILL after `ms`, and returns what it printed before dying.
  func runAndKill(_ executable: String, arguments: [String], afterMs ms: Int) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    usleep(UInt32(ms) * 1000)
    kill(process.processIdentifier, SIGKILL)
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }

  /// Only complete lines count: a line cut by the kill was never fully reported.
  func parse(_ output: String, into reported: inout Reported) {
    var lines = output.split(separator: "\n", omittingEmptySubsequences: false)
    lines.removeLast()  // after the last "\n": empty, or a line the kill cut short
    for line in lines {
      let parts = line.split(separator: " ", maxSplits: 1)
      guard parts.count == 2 else { continue }
      let value = String(parts[1])
      switch parts[0] {
      case "M": reported.measurements.insert(value)
      case "U": reported.uploaded.insert(value)
      case "Q": reported.quarantined.insert(value)
      case "I": reported.ibis += Int(value) ?? 0
      default: reported.errors.append(String(line))
      }
    }
  }

  func verify(_ path: String, _ reported: Reported, round: Int, seed: UInt64) throws {
    let store = try MeasurementStore(path: path)
    defer { store.close() }
    let context = "round \(round), seed \(seed)"
    #expect(try store.integrityCheck() == ["ok"], "\(context)")
    let rows = try store.locked { core in
      try core.connection.prepare(
        "SELECT id, needs_upload, quarantined_at IS NOT NULL FROM measurements"
      ).rows { ($0.text(0) ?? "", $0.int(1) == 0, $0.int(2) == 1) }
    }
    var stored: [String: (uploaded: Bool, quarantined: Bool)] = [:]
    for row in rows { stored[row.0] = (row.1, row.2) }
    let missing = reported.measurements.filter { stored[$0] == nil }
    #expect(missing.isEmpty, "\(context): \(missing.count) committed measurements missing")
    let unmarked = reported.uploaded.filter { stored[$0].map { !$0.uploaded && !$0.quarantined } ?? true }
    #expect(unmarked.isEmpty, "\(context): \(unmarked.count) upload marks lost")
    let unquarantined = reported.quarantined.filter { stored[$0]?.quarantined != true }
    #expect(unquarantined.isEmpty, "\(context): \(unquarantined.count) quarantines lost")
    let ibis = try store.status().ibis
    #expect(ibis >= reported.ibis, "\(context): \(reported.ibis) IBIs reported, \(ibis) stored")
  }
}

