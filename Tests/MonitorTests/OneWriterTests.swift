import Foundation
import Store
import Testing
import TestSupport

/// One daemon per database (issue 43: two `run` on one file both ran and mixed two people's windows into one
/// baseline), and `history` names the device of each row.
@Suite("One daemon per database", .serialized)
struct OneWriterTests {
  @Test("a second run on the same database stops at once, naming the first one's pid; history shows the device")
  func secondDaemonRefused() throws {
    // Given a daemon measuring into a database
    let directory = try TemporaryDirectory("one-writer")
    defer { directory.remove() }
    let db = directory.file("run.db")
    let first = try LiveProcess(
      ["run", "--board", "sim", "--speed", "10", "--db", db, "--json", "--device", "alice"],
      workingDirectory: directory.path)
    #expect(first.waitForEvent(timeout: 60, hint: "started") { $0["event"] as? String == "started" } != nil)

    // When a second one is started on the same file, for another wearer
    let second = try CLIRunner.run(
      ["run", "--board", "sim", "--speed", "10", "--duration", "100", "--db", db, "--device", "bob"],
      workingDirectory: directory.path)

    // Then it is refused with one line naming the first, and writes nothing
    #expect(second.status == 69, "\(second.stderr)")
    #expect(second.stderr.contains("pid \(first.pid)"), "\(second.stderr)")
    #expect(second.stderr.split(separator: "\n").count == 1, "\(second.stderr)")
    #expect(first.waitForEvent(timeout: 60, hint: "window") { $0["event"] as? String == "window" } != nil)
    first.send(SIGTERM)
    #expect(first.waitForExit(timeout: 30) == 0, "\(first.stderr)")
    let store = try MeasurementStore(path: db, options: .reading)
    let devices = Set(try store.measurements().map(\.record.deviceId))
    store.close()
    #expect(devices == ["alice"])

    // And once the first has stopped, the lock is free again (a stale lock file never blocks a restart)
    let again = try CLIRunner.run(
      ["run", "--board", "sim", "--speed", "max", "--duration", "70", "--db", db, "--device", "alice"],
      workingDirectory: directory.path)
    #expect(again.status == 0, "\(again.stderr)")
    // and history names the device on every line and in its summary
    let history = try CLIRunner.run(["history", "--db", db])
    #expect(history.status == 0)
    let lines = history.stdout.split(separator: "\n")
    #expect(lines.dropLast().allSatisfy { $0.contains(" alice ") }, "\(history.stdout)")
    #expect(lines.last?.contains("of device alice") == true, "\(history.stdout)")
  }
}
