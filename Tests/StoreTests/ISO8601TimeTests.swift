import Foundation
import Store
import SyncWire
import Testing

@Suite("ISO 8601 times, default paths, export formats")
struct ISO8601TimeTests {
  @Test("UTC and offset forms parse to the exact second", arguments: [
    ("2024-05-01T00:00:00Z", 1_714_521_600.0),
    ("2024-05-01T10:30Z", 1_714_559_400.0),
    ("2024-05-01 10:30:15.25z", 1_714_559_415.25),
    ("2024-05-01T12:30:00+02:00", 1_714_559_400.0),
    ("2024-05-01T05:30:00-0500", 1_714_559_400.0),
    ("2024-05-01T12:30:00+02", 1_714_559_400.0),
    ("2024-02-29T00:00:00Z", 1_709_164_800.0),
    ("  2024-05-01T00:00:00Z\n", 1_714_521_600.0),
  ])
  func parsesZoned(text: String, expected: Double) {
    #expect(ISO8601Time.parse(text) == expected)
  }

  @Test("Dates and times without a zone are local time (TZ)")
  func local() {
    let old = getenv("TZ").map { String(cString: $0) }
    setenv("TZ", "Europe/Berlin", 1)
    tzset()
    defer {
      if let old { setenv("TZ", old, 1) } else { unsetenv("TZ") }
      tzset()
    }
    // 2024-05-01 is summer time in Berlin: UTC+2.
    #expect(ISO8601Time.parse("2024-05-01") == 1_714_521_600.0 - 7200)
    #expect(ISO8601Time.parse("2024-05-01T12:30") == 1_714_559_400.0)  // 10:30Z
    #expect(ISO8601Time.formatLocal(1_714_559_400) == "2024-05-01 12:30:00+02:00")
  }

  @Test("Nonsense is refused, including dates the C library would silently roll over", arguments: [
    "", "yesterday", "2024-5-1", "2024-13-01", "2024-02-30", "2023-02-29", "2024-05-01T25:00Z", "2024-05-01T10:61Z",
    "2024-05-01T10:00:00+2", "2024-05-01T10:00:00Zjunk", "2024-05-01T", "1714521600",
  ])
  func refuses(text: String) {
    #expect(ISO8601Time.parse(text) == nil)
  }

  @Test("UTC formatting with and without fractions")
  func formatting() {
    #expect(ISO8601Time.formatUTC(1_714_559_415.25) == "2024-05-01T10:30:15Z")
    #expect(ISO8601Time.formatUTC(1_714_559_415.25, fractionDigits: 3) == "2024-05-01T10:30:15.250Z")
    #expect(ISO8601Time.formatUTC(0) == "1970-01-01T00:00:00Z")
    #expect(ISO8601Time.parse(ISO8601Time.formatUTC(1_714_559_415.5, fractionDigits: 3)) == 1_714_559_415.5)
  }

  @Test("Default database: /var/lib as root, else XDG_DATA_HOME (absolute only), else ~/.local/share")
  func defaultPaths() {
    #expect(StorePaths.defaultDatabasePath(environment: ["HOME": "/home/pi"], isRoot: true) == "/var/lib/stressmon/stressmon.db")
    #expect(
      StorePaths.defaultDatabasePath(environment: ["HOME": "/home/pi", "XDG_DATA_HOME": "/data/"], isRoot: false)
        == "/data/stressmon/stressmon.db")
    #expect(
      StorePaths.defaultDatabasePath(environment: ["HOME": "/home/pi", "XDG_DATA_HOME": "relative"], isRoot: false)
        == "/home/pi/.local/share/stressmon/stressmon.db")
  }

  @Test("CSV: one header and one line per row, quoting reasons that contain commas and quotes")
  func csv() throws {
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let records = generator.run(try SessionGenerator.realIntervals().prefix(200)).records
    let rows = records.enumerated().map { index, record in
      StoredMeasurement(
        record: record, clockState: .synchronised, recordedWindowEnd: record.windowEnd,
        upload: index == 0 ? .quarantined(reason: "422: \"stress_level\", out of range", at: may2024) : .pending)
    }
    let text = MeasurementExport.csv(rows)
    let lines = text.split(separator: "\n")
    #expect(lines.count == records.count + 1)
    #expect(lines[0].split(separator: ",").count == MeasurementExport.csvColumns.count)
    #expect(lines[1].hasSuffix(",quarantined,\"422: \"\"stress_level\"\", out of range\""))
    #expect(lines[2].hasPrefix(records[1].id + ",test-device," + ISO8601Time.formatUTC(records[1].windowStart, fractionDigits: 3)))
  }

  @Test("JSON rows carry the wire fields plus the store's clock and upload state")
  func json() throws {
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let record = generator.run(try SessionGenerator.realIntervals().prefix(200)).records[0]
    let row = StoredMeasurement(record: record, clockState: .corrected, recordedWindowEnd: 1234, upload: .uploaded(at: may2024))
    let data = try JSONEncoder().encode(MeasurementExport.JSONDocument([row], since: nil, until: nil))
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    let list = object?["measurements"] as? [[String: Any]]
    let first = try #require(list?.first)
    #expect(first["id"] as? String == record.id)
    #expect(first["sdnn_ms"] as? Double == record.sdnnMs)
    #expect(first["clock_state"] as? String == "corrected")
    #expect(first["upload_state"] as? String == "uploaded")
    #expect(first["uploaded_at"] as? Double == may2024)
    #expect(first["recorded_window_end"] as? Double == 1234)
    // The wire decoder reads the same object back into the same record.
    let again = try JSONDecoder().decode(MeasurementRecord.self, from: JSONSerialization.data(withJSONObject: first))
    #expect(again == record)
  }
}
