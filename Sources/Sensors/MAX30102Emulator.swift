import BoardParts
import Platform
import Synchronization

/// A register-level MAX3010x at 0x57 for tests and the simulated board: the real register map, a 32-sample FIFO
/// with write/read pointers that advance on the injected clock, OVF_COUNTER, A_FULL, reset, shutdown, die
/// temperature, and samples made by `EmulatedFinger` optics from a recorded pulse wave, at the configured ADC
/// rate, averaging, pulse width (resolution), ADC range and LED currents.
///
/// Stricter than the part where that catches driver bugs: bits 23:18 of each FIFO word (not data, "don't care"
/// in the datasheet) carry junk, so an unmasked read shows. Samples are computed when due, lazily, at each bus
/// access; a FIFO left full for hours costs nothing (drops are only counted).
///
/// Thread-safe: every entry point takes `lock`, so a test or the simulated board may put a finger on it while a
/// source on another task reads it.
public final class MAX30102Emulator: EmulatedI2CDevice, @unchecked Sendable {
  // MARK: - Types

  /// One sample the emulator pushed into its FIFO: its index on the timeline (dropped samples count) and the
  /// 18-bit value of each physical colour (nil when that LED is not sampled).
  public struct Sample: Sendable, Equatable {
    public var index: Int
    public var red: Int32?
    public var ir: Int32?
    public var green: Int32?
  }

  // MARK: - Properties

  public let waveform: PulseWaveform
  public private(set) var options: Options
  private let clock: any SensorClock
  private let poweredOnAt: Int64
  /// When transfers start to hang (`Options.stallAfter`), on the injected clock.
  private let stallsAt: Int64?
  /// Guards all mutable state below.
  private let lock = Mutex(())

  private var registers = [UInt8](repeating: 0, count: 256)
  private var status1: UInt8 = MAX30102Register.InterruptStatus1.powerReady
  private var status2: UInt8 = 0
  private var fifo = [[UInt32]](repeating: [0, 0, 0, 0], count: MAX30102Bits.fifoDepth)
  private var writePointer = 0
  private var readPointer = 0
  private var overflowCounter = 0
  private var isFull = false
  private var byteInSample = 0
  private var registerPointer: UInt8 = 0
  private var resetUntil: Int64 = .min
  private var temperatureReadyAt: Int64?

  /// The current run of conversions: when it began and how many FIFO samples it has produced.
  private var runStart: Int64?
  private var producedInRun = 0

  private var produced = 0
  private var dropped = 0
  private var pushedLog: [Sample] = []

  // MARK: - Initialization

  public init(waveform: PulseWaveform, clock: any SensorClock, options: Options = Options()) {
    self.waveform = waveform
    self.clock = clock
    self.options = options
    let now = clock.now()
    poweredOnAt = now
    stallsAt = options.stallAfter.map { now + $0 }
  }

  // MARK: - Public: the world outside the registers

  /// Puts a finger on (or takes it off) the sensor from now on.
  public func setFinger(_ finger: EmulatedFinger) {
    lock.withLock { _ in
      advance()
      options.finger = finger
    }
  }

  /// Unread samples in the FIFO now.
  public var unreadCount: Int {
    lock.withLock { _ in
      advance()
      return isFull ? MAX30102Bits.fifoDepth : (writePointer - readPointer) & 31
    }
  }

  /// FIFO samples produced since power-on, pushed or dropped: the next sample's timeline index.
  public var producedCount: Int { lock.withLock { _ in produced } }
  /// Samples dropped because the FIFO was full (or overwritten, with rollover on).
  public var droppedCount: Int { lock.withLock { _ in dropped } }
  /// Every pushed sample when `options.logsSamples`.
  public var log: [Sample] { lock.withLock { _ in pushedLog } }

  // MARK: - EmulatedI2CDevice

  public func receive(_ bytes: [UInt8]) {
    stallIfDue()
    lock.withLock { _ in receiveLocked(bytes) }
  }

  public func transmit(count: Int) -> [UInt8] {
    stallIfDue()
    return lock.withLock { _ in transmitLocked(count: count) }
  }

  /// Past `options.stallAfter`, the calling thread never comes back (it sleeps, costing nothing).
  private func stallIfDue() {
    guard let stallsAt, clock.now() >= stallsAt else { return }
    while true { _ = sleep(3_600) }
  }

  private func receiveLocked(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    advance()
    registerPointer = first
    for value in bytes.dropFirst() {
      write(registerPointer, value)
      if registerPointer != MAX30102Register.fifoData { registerPointer &+= 1 }
    }
  }

  private func transmitLocked(count: Int) -> [UInt8] {
    advance()
    var out: [UInt8] = []
    out.reserveCapacity(count)
    for _ in 0..<count {
      out.append(read(registerPointer))
      if registerPointer != MAX30102Register.fifoData { registerPointer &+= 1 }
    }
    return out
  }

  // MARK: - Private: registers

  private func read(_ register: UInt8) -> UInt8 {
    switch register {
    case MAX30102Register.interruptStatus1:
      defer { status1 = 0 }
      return status1
    case MAX30102Register.interruptStatus2:
      defer { status2 = 0 }
      return status2
    case MAX30102Register.fifoWritePointer: return UInt8(writePointer)
    case MAX30102Register.overflowCounter: return UInt8(overflowCounter)
    case MAX30102Register.fifoReadPointer: return UInt8(readPointer)
    case MAX30102Register.fifoData: return popFIFOByte()
    case MAX30102Register.modeConfiguration:
      return registers[Int(register)] | (clock.now() < resetUntil ? MAX30102Register.ModeConfiguration.reset : 0)
    case MAX30102Register.led3PulseAmplitude where options.part == .max30102: return 0
    case MAX30102Register.revisionID: return options.revisionID
    case MAX30102Register.partID: return options.partID
    default: return registers[Int(register)]
    }
  }

  private func write(_ register: UInt8, _ value: UInt8) {
    switch register {
    case MAX30102Register.interruptStatus1, MAX30102Register.interruptStatus2, MAX30102Register.fifoData,
      MAX30102Register.temperatureInteger, MAX30102Register.temperatureFraction, MAX30102Register.revisionID,
      MAX30102Register.partID:
      return  // read-only
    case MAX30102Register.fifoWritePointer:
      writePointer = Int(value & MAX30102Register.FIFOPointer.mask)
      isFull = false
    case MAX30102Register.overflowCounter:
      overflowCounter = Int(value & MAX30102Register.FIFOPointer.mask)
    case MAX30102Register.fifoReadPointer:
      readPointer = Int(value & MAX30102Register.FIFOPointer.mask)
      isFull = false
      byteInSample = 0
    case MAX30102Register.modeConfiguration:
      if value & MAX30102Register.ModeConfiguration.reset != 0 {
        powerOnReset()
        resetUntil = clock.now() + options.resetDuration
        return
      }
      typealias Mode = MAX30102Register.ModeConfiguration
      registers[Int(register)] = value & (Mode.shutdown | Mode.mode.mask)
      restartRun()
    case MAX30102Register.fifoConfiguration, MAX30102Register.spo2Configuration, MAX30102Register.multiLEDControl1,
      MAX30102Register.multiLEDControl2:
      registers[Int(register)] = value
      restartRun()
    case MAX30102Register.led3PulseAmplitude where options.part == .max30102:
      return  // no LED3 on the MAX30102
    case MAX30102Register.temperatureConfiguration:
      let enable = MAX30102Register.TemperatureConfiguration.enable
      if value & enable != 0 {
        registers[Int(register)] = enable
        temperatureReadyAt = clock.now() + MAX30102Bits.temperatureConversionNanoseconds
      }
    default:
      registers[Int(register)] = value
    }
  }

  private func powerOnReset() {
    registers = [UInt8](repeating: 0, count: 256)
    status1 = 0
    status2 = 0
    writePointer = 0
    readPointer = 0
    overflowCounter = 0
    isFull = false
    byteInSample = 0
    runStart = nil
    temperatureReadyAt = nil
  }

  // MARK: - Private: FIFO

  /// LED numbers (1 = LED1, 2 = LED2, 3 = LED3) sampled in each FIFO sample, in FIFO order.
  private var activeLEDs: [Int] {
    let mode = registers[Int(MAX30102Register.modeConfiguration)]
    guard mode & MAX30102Register.ModeConfiguration.shutdown == 0 else { return [] }
    switch MAX30102Register.ModeConfiguration.mode.get(mode) {
    case MAX30102Register.ModeConfiguration.heartRate: return [1]
    case MAX30102Register.ModeConfiguration.spO2: return [1, 2]
    case MAX30102Register.ModeConfiguration.multiLED:
      let control1 = registers[Int(MAX30102Register.multiLEDControl1)]
      let control2 = registers[Int(MAX30102Register.multiLEDControl2)]
      var leds: [Int] = []
      typealias Slots = MAX30102Register.MultiLEDControl
      let slots = [control1, control2].flatMap { [Slots.lowSlot.get($0), Slots.highSlot.get($0)] }
      for slot in slots {
        guard slot != 0 else { break }  // slots are used in order; the first empty one ends the list
        leds.append(Int(slot))
      }
      return leds
    default: return []
    }
  }

  private func popFIFOByte() -> UInt8 {
    let leds = max(1, activeLEDs.count)
    let unread = isFull ? MAX30102Bits.fifoDepth : (writePointer - readPointer) & 31
    let word = fifo[readPointer][min(3, byteInSample / 3)]
    let byte = UInt8(truncatingIfNeeded: word >> (16 - 8 * UInt32(byteInSample % 3)))
    byteInSample += 1
    if byteInSample >= leds * MAX30102Bits.bytesPerChannel {
      byteInSample = 0
      // An empty FIFO repeats its last slot without moving the pointer.
      if unread > 0 {
        readPointer = (readPointer + 1) & 31
        isFull = false
        overflowCounter = 0
      }
    }
    return byte
  }

  private func push(_ words: [UInt32], index: Int) {
    let fifoConfiguration = registers[Int(MAX30102Register.fifoConfiguration)]
    if isFull {
      overflowCounter = min(MAX30102Bits.overflowCounterMaximum, overflowCounter + 1)
      dropped += 1
      guard fifoConfiguration & MAX30102Register.FIFOConfiguration.rolloverEnable != 0 else { return }
      readPointer = (readPointer + 1) & 31  // rollover: the oldest sample is overwritten
    }
    fifo[writePointer] = words
    writePointer = (writePointer + 1) & 31
    if writePointer == readPointer { isFull = true }
    let unread = isFull ? MAX30102Bits.fifoDepth : (writePointer - readPointer) & 31
    typealias Status1 = MAX30102Register.InterruptStatus1
    let enables = registers[Int(MAX30102Register.interruptEnable1)]
    if enables & Status1.dataReady != 0 { status1 |= Status1.dataReady }
    let emptySlotsForInterrupt = Int(MAX30102Register.FIFOConfiguration.almostFullEmptySlots.get(fifoConfiguration))
    if enables & Status1.almostFull != 0 && unread >= MAX30102Bits.fifoDepth - emptySlotsForInterrupt {
      status1 |= Status1.almostFull
    }
  }

  // MARK: - Private: sampling

  private var averaging: Int {
    let code = MAX30102Register.FIFOConfiguration.averaging.get(registers[Int(MAX30102Register.fifoConfiguration)])
    return [1, 2, 4, 8, 16, 32, 32, 32][Int(code)]
  }

  private var spo2: UInt8 { registers[Int(MAX30102Register.spo2Configuration)] }

  /// Nanoseconds per ADC conversion at the configured rate, with the oscillator's error.
  private var conversionPeriod: Double {
    let rate = Double(MAX30102Configuration.sampleRates[Int(MAX30102Register.SpO2Configuration.sampleRate.get(spo2))])
    return 1e9 / (rate * (1 + options.oscillatorError))
  }

  private func restartRun() {
    runStart = activeLEDs.isEmpty || clock.now() < resetUntil ? nil : clock.now()
    producedInRun = 0
  }

  /// Produces every sample due by now, and finishes timed operations (reset, temperature).
  private func advance() {
    let now = clock.now()
    if let ready = temperatureReadyAt, now >= ready {
      temperatureReadyAt = nil
      registers[Int(MAX30102Register.temperatureConfiguration)] = 0
      let whole = options.dieTemperature.rounded(.down)
      registers[Int(MAX30102Register.temperatureInteger)] = UInt8(bitPattern: Int8(clamping: Int(whole)))
      registers[Int(MAX30102Register.temperatureFraction)] = MAX30102Register.TemperatureFraction.fraction.set(
        UInt8((options.dieTemperature - whole) / MAX30102Bits.temperatureFractionStep))
      let ready = MAX30102Register.InterruptStatus2.dieTemperatureReady
      if registers[Int(MAX30102Register.interruptEnable2)] & ready != 0 { status2 |= ready }
    }
    if runStart == nil && !activeLEDs.isEmpty && now >= resetUntil && resetUntil != .min {
      restartRun()
    }
    guard let start = runStart else { return }
    let samplePeriod = conversionPeriod * Double(averaging)
    let due = Int(Double(now - start) / samplePeriod)
    let fifoConfiguration = registers[Int(MAX30102Register.fifoConfiguration)]
    let rollover = fifoConfiguration & MAX30102Register.FIFOConfiguration.rolloverEnable != 0
    while producedInRun < due {
      if isFull && !rollover {
        // Everything still due is dropped: count it without computing it.
        let missed = due - producedInRun
        overflowCounter = min(MAX30102Bits.overflowCounterMaximum, overflowCounter + missed)
        dropped += missed
        produced += missed
        producedInRun = due
        break
      }
      produceSample(start: start)
    }
  }

  private func produceSample(start: Int64) {
    let leds = activeLEDs
    let average = averaging
    let period = conversionPeriod
    let spo2 = spo2
    let range = Double(MAX30102Configuration.adcRanges[Int(MAX30102Register.SpO2Configuration.adcRange.get(spo2))])
    let bits = MAX30102Configuration.pulseWidths[Int(MAX30102Register.SpO2Configuration.pulseWidth.get(spo2))].1
    let quantum = Int64(1) << (18 - bits)
    var words = [UInt32](repeating: 0, count: 4)
    var sample = Sample(index: produced)
    for (slot, led) in leds.enumerated() {
      let colour = self.colour(ofLED: led)
      var sum: Int64 = 0
      for k in 0..<average {
        let conversion = producedInRun * average + k
        // The conversion's time: its end, on the part's clock.
        let time = Double(start - poweredOnAt) + Double(conversion + 1) * period
        sum += convert(colour: colour, led: led, seconds: time / 1e9, range: range, quantum: quantum,
                       noiseIndex: produced * average + k)
      }
      let value = Int32(sum / Int64(average))
      let junk: UInt32 = options.junkInUnusedBits
        ? UInt32(truncatingIfNeeded: DeterministicNoise.hash(produced, 77 + UInt64(slot))) & 0x3F : 0
      words[slot] = UInt32(value) | junk << 18
      switch colour {
      case .red?: sample.red = value
      case .ir?: sample.ir = value
      case .green?: sample.green = value
      case nil: break
      }
    }
    if options.logsSamples { pushedLog.append(sample) }
    producedInRun += 1
    produced += 1
    push(words, index: sample.index)
  }

  /// The physical LED behind LED1/LED2/LED3; nil for LED3 on a MAX30102 (there is none).
  private func colour(ofLED led: Int) -> LEDColour? {
    switch led {
    case 1: options.ledsSwapped ? .ir : .red
    case 2: options.ledsSwapped ? .red : .ir
    case 3: options.part == .max30102 ? nil : .green
    default: nil
    }
  }

  /// One ADC conversion in 18-bit counts, clipped and quantised to the resolution.
  private func convert(
    colour: LEDColour?, led: Int, seconds: Double, range: Double, quantum: Int64, noiseIndex: Int
  ) -> Int64 {
    let register = [MAX30102Register.led1PulseAmplitude, MAX30102Register.led2PulseAmplitude,
                    MAX30102Register.led3PulseAmplitude][led - 1]
    let milliamps = Double(registers[Int(register)]) * MAX30102Bits.milliampsPerStep
    let finger = options.finger
    let nanoamps = colour.map {
      finger.photocurrent(colour: $0, milliamps: milliamps, pulse: finger.present ? waveform.value(at: seconds) : 0)
    } ?? 0
    let noise = finger.noiseCounts * DeterministicNoise.triangular(noiseIndex, UInt64(led))
    let counts = nanoamps / range * Double(1 << 18) + noise
    let clipped = Int64(min(Double(MAX30102Bits.fullScale), max(0, counts.rounded())))
    return clipped / quantum * quantum
  }
}
