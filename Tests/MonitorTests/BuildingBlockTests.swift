import Indicators
import Monitor
import StressModel
import SyncWire
import Testing

@Suite("Daemon building blocks: hand-overs, ids, speeds, what the LEDs show")
struct BuildingBlockTests {
  @Test("a coalescing mailbox keeps only the newest item and counts the rest")
  func coalesce() async {
    let mailbox = Mailbox<Int>(policy: .coalesce)
    for value in 1...5 { mailbox.offer(value) }
    mailbox.finish()
    #expect(await mailbox.next() == 5)
    #expect(await mailbox.next() == nil)
    #expect(mailbox.dropped == 4)
  }

  @Test("a drop-oldest mailbox keeps the newest n in order")
  func dropOldest() async {
    let mailbox = Mailbox<Int>(policy: .dropOldest(3))
    for value in 1...7 { mailbox.offer(value) }
    mailbox.finish()
    var received: [Int] = []
    while let value = await mailbox.next() { received.append(value) }
    #expect(received == [5, 6, 7])
    #expect(mailbox.dropped == 4)
  }

  @Test("a back-pressure mailbox makes the sender wait and loses nothing")
  func backpressure() async {
    let mailbox = Mailbox<Int>(policy: .backpressure(2))
    let sender = Task {
      for value in 0..<200 { await mailbox.send(value) }
      mailbox.finish()
    }
    var received: [Int] = []
    var maximumQueued = 0
    while let value = await mailbox.next() {
      received.append(value)
      maximumQueued = max(maximumQueued, mailbox.count)
      if value % 10 == 0 { await Task.yield() }
    }
    await sender.value
    #expect(received == Array(0..<200))
    #expect(maximumQueued <= 2)
    #expect(mailbox.dropped == 0)
  }

  @Test("row ids are lowercase RFC 9562 version 7 UUIDs, ordered by time")
  func measurementIDs() {
    var ids: [String] = []
    for milliseconds in stride(from: Int64(1_767_225_600_000), to: 1_767_225_610_000, by: 1_000) {
      ids.append(MeasurementID.make(unixMilliseconds: milliseconds))
    }
    for id in ids {
      #expect(SyncIdentifiers.isValidRowId(id))
      #expect(Array(id)[14] == "7")
      #expect("89ab".contains(Array(id)[19]))
    }
    #expect(ids == ids.sorted())
    #expect(Set(ids).count == ids.count)
    // The first 48 bits are the milliseconds: 1767225600000 = 0x019b76daa800.
    #expect(ids[0].hasPrefix("019b76da-a800-7"))
  }

  @Test("speeds parse as realtime, max or a factor; nonsense does not")
  func speeds() {
    #expect(RunSpeed(parsing: "realtime") == .realtime)
    #expect(RunSpeed(parsing: "1") == .realtime)
    #expect(RunSpeed(parsing: "max") == .max)
    #expect(RunSpeed(parsing: "10") == .times(10))
    #expect(RunSpeed(parsing: "2.5x") == .times(2.5))
    for bad in ["0", "-3", "fast", "nan", "inf", "5000"] { #expect(RunSpeed(parsing: bad) == nil, "\(bad)") }
  }

  @Test("the LEDs show the category through store and panel faults, the error rhythm when nothing current exists")
  func indicatorStates() {
    let result = StressCalculator().result(hrvMs: 30, heartRateBpm: 80, baseline: .default)
    var status = MonitorStatus(phase: .learningBaseline)
    status.result = result
    #expect(status.indicatorState == .category(result.category))
    status.faults = [.store("disk full")]
    #expect(status.name == "error")
    #expect(status.indicatorState == .category(result.category))
    #expect(status.panelStatus.first == .error("cannot save data"))
    status.faults = [.sensor("gone", retryInSeconds: 4)]
    #expect(status.indicatorState == .error)
    var waiting = MonitorStatus(phase: .settling)
    #expect(waiting.indicatorState == .measuring)
    waiting.phase = .noContact
    #expect(waiting.indicatorState == .noContact)
    #expect(waiting.panelStatus == [.noContact])
    waiting.phase = .uncategorised(.poorSignal)
    #expect(waiting.panelStatus == [.message("Uncategorised: poor signal")])
  }
}
