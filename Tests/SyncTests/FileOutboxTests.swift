import FoundationEssentials
import Sync
import SyncTestSupport
import SyncWire
import TestSupport
import Testing

@Suite("File-backed outbox")
struct FileOutboxTests {
  @Test("state survives reopening: uploaded rows stay gone, quarantine keeps its reason")
  func survivesReopen() throws {
    let directory = try TemporaryDirectory("outbox")
    defer { directory.remove() }
    let rows = try MeasurementFixtures.records(device: "desk-1", count: 30)
    do {
      let outbox = try FileOutbox(directory: directory.path)
      try outbox.add(rows)
      try outbox.markUploaded(ids: rows.prefix(10).map(\.id), at: 1_767_300_000)
      try outbox.quarantine(id: rows[10].id, reason: "bad row", at: 1_767_300_001)
    }
    let reopened = try FileOutbox(directory: directory.path)
    #expect(try reopened.pendingUploads(limit: 500) == Array(rows[11...]))
    #expect(try reopened.quarantined() == [QuarantinedRow(id: rows[10].id, reason: "bad row", at: 1_767_300_001)])
    #expect(try reopened.outboxStatus() == OutboxStatus(pending: 19, waitingForClock: 0, quarantined: 1, lastUploadAt: 1_767_300_000))
  }

  @Test("a torn last line (killed mid-write) is skipped and the journal stays usable")
  func tornLineIsSkipped() throws {
    let directory = try TemporaryDirectory("outbox")
    defer { directory.remove() }
    let rows = try MeasurementFixtures.records(device: "desk-1", count: 4)
    do {
      let outbox = try FileOutbox(directory: directory.path)
      try outbox.add(rows)
    }
    // Given half a line appended, as a crash mid-write could leave
    let journal = directory.path + "/" + FileOutbox.journalName
    var bytes = Array(FileManager.default.contents(atPath: journal) ?? Data())
    bytes += Array(#"{"uploaded":["\#(rows[0].id)"],"a"#.utf8)
    try Data(bytes).write(to: URL(fileURLWithPath: journal))
    // When reopened and written again
    let reopened = try FileOutbox(directory: directory.path)
    #expect(try reopened.outboxStatus().pending == 4)
    try reopened.markUploaded(ids: [rows[1].id], at: 1_767_300_000)
    // Then the new line is intact after another reopen
    let again = try FileOutbox(directory: directory.path)
    #expect(try again.pendingUploads(limit: 10).map(\.id) == [rows[0].id, rows[2].id, rows[3].id])
  }

  @Test("a file where the directory should be is a clear error")
  func fileInsteadOfDirectory() throws {
    let directory = try TemporaryDirectory("outbox")
    defer { directory.remove() }
    let file = try directory.write("not-a-dir", "x")
    #expect { try FileOutbox(directory: file) } throws: { error in
      "\(error)".contains("is a file, not an outbox directory")
    }
  }
}

@Suite("Row validation rules")
struct MeasurementValidationTests {
  @Test("every fixture row from the real recording is valid")
  func fixturesAreValid() throws {
    let rows = try MeasurementFixtures.records(device: "desk-1", count: 300)
    #expect(rows.allSatisfy { $0.validationProblem() == nil })
    #expect(Set(rows.map(\.id)).count == 300)
    #expect(rows.allSatisfy { SyncIdentifiers.isValidRowId($0.id) })
  }

  @Test("each broken field is named in the reason")
  func brokenFieldsAreNamed() throws {
    let row = try MeasurementFixtures.records(device: "desk-1", count: 1)[0]
    var cases: [(MeasurementRecord, String)] = []
    var r = row; r.id = "ABC"; cases.append((r, "UUID"))
    r = row; r.clockSynchronised = false; cases.append((r, "synchronised"))
    r = row; r.windowEnd = .nan; cases.append((r, "window_end"))
    r = row; r.windowEnd = row.windowStart - 1; cases.append((r, "before window_start"))
    r = row; r.stressLevel = 120; cases.append((r, "outside 0-100"))
    r = row; r.category = row.category == .high ? .relaxed : .high; cases.append((r, "does not match"))
    r = row; r.heartRateBpm = 900; cases.append((r, "heart_rate_bpm"))
    r = row; r.confidence = 2; cases.append((r, "confidence"))
    r = row; r.quality = .noContact; cases.append((r, "uncategorised"))
    r = row; r.stressLevel = nil; cases.append((r, "both present or both absent"))
    for (broken, expected) in cases {
      let problem = broken.validationProblem()
      #expect(problem?.contains(expected) == true, "expected '\(expected)' in \(problem ?? "nil")")
    }
  }

  @Test("device ids are path-safe")
  func deviceIds() {
    #expect(SyncIdentifiers.isValidDeviceId("desk-1.lab_2"))
    #expect(!SyncIdentifiers.isValidDeviceId(""))
    #expect(!SyncIdentifiers.isValidDeviceId("a/b"))
    #expect(!SyncIdentifiers.isValidDeviceId(String(repeating: "x", count: 65)))
  }
}
