import LinuxIO

/// FIFO reading (datasheet "FIFO Configuration" and the pseudo-code under "FIFO Data").
///
/// One poll: read Interrupt Status 1 (clears A_FULL), then FIFO_WR_PTR, OVF_COUNTER and FIFO_RD_PTR in one burst.
/// Unread samples = (WR − RD) mod 32, except that WR == RD also means *full* when OVF_COUNTER > 0 or A_FULL is
/// set (A_FULL is configured to fire at 32 unread). Rollover is off, so a full FIFO keeps its oldest 32 samples
/// and drops new ones, counting them in OVF_COUNTER: the samples read follow the previous ones without a gap,
/// and the OVF_COUNTER lost samples come after them. OVF_COUNTER saturates at 31: beyond that the gap is sized
/// from the clock (the anchor: a sample whose time is known to half a period, refreshed at every drain).
///
/// Samples are read in bursts of at most 16 through one combined transfer each (fewer on an SMBus-only adapter:
/// `samplesPerTransfer`). When a burst fails (EIO, NACK),
/// the read pointer tells how many samples it popped; the datasheet allows writing FIFO_RD_PTR back to retry
/// them, which is safe while those slots have not been refilled. If they have, the FIFO is flushed and the
/// loss becomes a gap sized from the clock. Never stitched.
extension MAX30102Driver {
  // MARK: - Public

  /// Reads every sample now in the FIFO. Usually one block; more when samples were lost mid-read (each block
  /// after a loss carries its `gapBefore`). Empty when nothing new arrived.
  public func readFIFO() throws(SensorError) -> [PulseBlock] {
    let pollTime = clock.now()
    let status = try read(MAX30102Register.interruptStatus1)
    let pointers = try readMany(MAX30102Register.fifoWritePointer, count: 3)
    let mask = MAX30102Register.FIFOPointer.mask
    let (writePointer, overflow, readPointer) = (pointers[0] & mask, Int(pointers[1] & mask), pointers[2] & mask)
    var available = Int((writePointer &- readPointer) & MAX30102Register.FIFOPointer.mask)
    if available == 0 && (overflow > 0 || status & MAX30102Register.InterruptStatus1.almostFull != 0) {
      available = MAX30102Bits.fifoDepth
    }
    var lostAfter = overflow
    if overflow >= MAX30102Bits.overflowCounterMaximum {
      // Saturated: how many samples have been produced since the anchor, minus what is in the FIFO.
      let newest = anchorIndex + Int((pollTime - anchorTime) / samplePeriod)
      lostAfter = max(overflow, newest - (nextSampleIndex + pendingGap + available - 1))
    }

    var blocks: [PulseBlock] = []
    var current = Accumulator(leds: configuration.leds)
    var pointer = readPointer
    var remaining = available
    while remaining > 0 {
      let count = min(remaining, samplesPerTransfer)
      switch try readBurst(count: count, at: pointer) {
      case .read(let bytes):
        current.append(bytes, count: count, bytesPerSample: configuration.bytesPerSample, swap: configuration.swapRedIR)
        pointer = (pointer &+ UInt8(count)) & MAX30102Register.FIFOPointer.mask
        remaining -= count
      case .flushed(let flushTime):
        // The unread samples are gone; the next sample produced after the flush continues the timeline.
        finish(&current, into: &blocks)
        let next = anchorIndex + Int((flushTime - anchorTime + samplePeriod - 1) / samplePeriod)
        pendingGap += max(0, next - nextSampleIndex - pendingGap)
        lostAfter = 0
        remaining = 0
        logger.warning("max3010x fifo flushed after a failed read", metadata: ["gap": "\(pendingGap)"])
      }
    }
    finish(&current, into: &blocks)
    if available > 0 {
      // The newest sample read was produced within the last period before the poll.
      anchorIndex = nextSampleIndex + pendingGap - 1
      anchorTime = pollTime - samplePeriod / 2
    }
    if lostAfter > 0 {
      pendingGap += lostAfter
      anchorIndex += lostAfter
      logger.notice("max3010x fifo overflow", metadata: ["lost_samples": "\(lostAfter)"])
    }
    return blocks
  }

  // MARK: - Private

  enum BurstResult {
    case read([UInt8])
    /// The samples could not be recovered; the FIFO was flushed at this time.
    case flushed(Int64)
  }

  /// One burst of `count` samples from read pointer `pointer`, with the datasheet's retry by rewinding
  /// FIFO_RD_PTR.
  private func readBurst(count: Int, at pointer: UInt8) throws(SensorError) -> BurstResult {
    let length = count * configuration.bytesPerSample
    var lastError: DeviceError?
    for _ in 0..<Self.attempts {
      do {
        return .read(try bus.readRegisters(address: configuration.address, register: MAX30102Register.fifoData, count: length))
      } catch {
        lastError = error
        guard Self.isTransient(error) else { throw .device(error) }
      }
      let pointers = try readMany(MAX30102Register.fifoWritePointer, count: 3)
      let mask = MAX30102Register.FIFOPointer.mask
      let (writeNow, overflowNow, readNow) = (pointers[0] & mask, Int(pointers[1] & mask), pointers[2] & mask)
      let popped = Int((readNow &- pointer) & MAX30102Register.FIFOPointer.mask)
      if popped == 0 { continue }
      var unread = Int((writeNow &- readNow) & MAX30102Register.FIFOPointer.mask)
      if unread == 0 && overflowNow > 0 { unread = MAX30102Bits.fifoDepth }
      // Safe to rewind while the popped slots still hold the samples: fewer than 32 in the FIFO afterwards.
      if overflowNow == 0 && unread + popped < MAX30102Bits.fifoDepth {
        try write(MAX30102Register.fifoReadPointer, pointer)
        logger.debug("max3010x fifo read retried", metadata: ["popped": "\(popped)"])
        continue
      }
      try clearFIFO()
      return .flushed(clock.now())
    }
    throw .device(lastError!)
  }

  private func finish(_ accumulator: inout Accumulator, into blocks: inout [PulseBlock]) {
    guard accumulator.count > 0 else { return }
    let first = nextSampleIndex + pendingGap
    blocks.append(PulseBlock(
      gapBefore: pendingGap, firstSampleIndex: first, ir: accumulator.ir, red: accumulator.red,
      green: accumulator.green))
    nextSampleIndex = first + accumulator.count
    pendingGap = 0
    accumulator = Accumulator(leds: configuration.leds)
  }
}

/// Unpacks FIFO bytes into channels: 3 bytes per LED slot, big-endian, 18 bits (bits 23:18 are not data).
struct Accumulator {
  var red: [Int32] = []
  var ir: [Int32] = []
  var green: [Int32] = []
  let leds: Int

  init(leds: Int) { self.leds = leds }

  var count: Int { ir.count }

  mutating func append(_ bytes: [UInt8], count: Int, bytesPerSample: Int, swap: Bool) {
    for sample in 0..<count {
      let base = sample * bytesPerSample
      let slot1 = Self.word(bytes, base)
      let slot2 = Self.word(bytes, base + 3)
      red.append(swap ? slot2 : slot1)
      ir.append(swap ? slot1 : slot2)
      if leds == 3 { green.append(Self.word(bytes, base + 6)) }
    }
  }

  static func word(_ bytes: [UInt8], _ offset: Int) -> Int32 {
    let raw = UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    return Int32(raw & MAX30102Bits.sampleMask)
  }
}
