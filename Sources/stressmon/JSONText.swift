import CommandSupport

/// The one JSON writer of the CLI: `analyze --json` (indented, one field per line; arrays of numbers on one
/// line) and the `run --json` event stream (`.line`: one object per line, no spaces). Keys stay in the order
/// given; non-finite numbers and nil become `null`. Written by hand rather than JSONEncoder: a day-long recording
/// has 100 000 beats, and encoding them took longer than finding them. A class, so nested writers append to one
/// buffer.
final class JSONText {
  enum Layout {
    /// Fields on their own lines, indented two spaces a level, `"key": value`.
    case indented
    /// Everything on one line, `"key":value`: a JSON-lines stream.
    case line
  }

  /// The output so far: raw memory grown by doubling. An array appended to byte by byte asked the runtime whether
  /// it was uniquely held, and whether this class's property was being accessed elsewhere, at every byte: that
  /// cost more than the digits. Unchecked: each method reads and writes them only while it runs.
  @exclusivity(unchecked) private var storage: UnsafeMutablePointer<UInt8>
  @exclusivity(unchecked) private var count = 0
  @exclusivity(unchecked) private var capacity: Int
  private var depth = 0
  private let layout: Layout

  /// `capacity`: the bytes to reserve (about what will be written, so that the buffer is not copied as it grows).
  /// `depth`: the nesting the text will be put at (`append(_:)`), for its indentation.
  init(layout: Layout = .indented, capacity: Int? = nil, depth: Int = 0) {
    self.layout = layout
    self.depth = depth
    self.capacity = max(16, capacity ?? (layout == .indented ? 1 << 16 : 256))
    storage = .allocate(capacity: self.capacity)
  }

  deinit { storage.deallocate() }

  /// What has been written.
  var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage, count: count)) }

  /// What has been written, without copying it (for stdout).
  func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try body(UnsafeRawBufferPointer(start: storage, count: count))
  }

  /// One object on one line: `{"key":value,...}`.
  static func line(_ body: (ObjectWriter) -> Void) -> String {
    let json = JSONText(layout: .line)
    json.object(body)
    return json.string
  }

  var string: String { String(decoding: UnsafeBufferPointer(start: storage, count: count), as: UTF8.self) }

  /// Writes an object; `body` adds its fields with `field(_:_:)` on the object writer it gets.
  func object(_ body: (ObjectWriter) -> Void) {
    append(0x7B)
    depth += 1
    let writer = ObjectWriter(json: self)
    body(writer)
    depth -= 1
    if writer.count > 0 { newline() }
    append(0x7D)
  }

  func array<T>(_ items: [T], _ body: (JSONText, T) -> Void) {
    append(0x5B)
    depth += 1
    for (i, item) in items.enumerated() {
      if i > 0 { append(0x2C) }
      newline()
      body(self, item)
    }
    depth -= 1
    if !items.isEmpty { newline() }
    append(0x5D)
  }

  func numbers(_ values: [Double]) {
    append(0x5B)
    for (i, value) in values.enumerated() {
      if i > 0 { separator() }
      number(value)
    }
    append(0x5D)
  }

  /// Numbers rounded to `places` decimals, as `number(_:places:)` writes them.
  func numbers(_ values: [Double], places: Int) {
    append(0x5B)
    for (i, value) in values.enumerated() {
      if i > 0 { separator() }
      number(value, places: places)
    }
    append(0x5D)
  }

  func integers(_ values: [Int64]) {
    append(0x5B)
    for (i, value) in values.enumerated() {
      if i > 0 { separator() }
      integer(value)
    }
    append(0x5D)
  }

  func number(_ value: Double?) {
    guard let value, value.isFinite else { return null() }
    if value == value.rounded(), abs(value) < 1e15 {
      integer(Int64(value))
    } else {
      append(contentsOf: value.description.utf8)
    }
  }

  /// `value` rounded to `places` decimals (0...9), exactly as `number` writes the rounded value: Swift's shortest
  /// form. A value rounded so is the nearest Double to k / 10^places; while k < 2⁵⁰, Doubles there lie closer
  /// together than half a step of 10^-places, so its shortest form is k's digits with the point put in and
  /// trailing zeros dropped, written without making a String. Below 0.001 (where Swift may switch to an
  /// exponent) and beyond, values go through `number`.
  func number(_ value: Double?, places: Int) {
    guard let value, value.isFinite, (0...9).contains(places) else { return number(value) }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let k = (value * scale).rounded()
    let result = k / scale
    let size = abs(result)
    guard size >= 1e-3, abs(k) < 0x1p50, result != result.rounded() else { return number(result) }
    var digits = Int64(k).magnitude
    var shown = places
    while digits % 10 == 0 {
      digits /= 10
      shown -= 1
    }
    if result < 0 { append(0x2D) }
    // Least significant digit first, the point after `shown` of them, a 0 before a point with nothing left of
    // it; then turned round in place.
    let start = count
    while shown > 0 {
      append(0x30 + UInt8(digits % 10))
      digits /= 10
      shown -= 1
    }
    append(0x2E)
    repeat {
      append(0x30 + UInt8(digits % 10))
      digits /= 10
    } while digits > 0
    turnRound(from: start)
  }

  /// Decimal digits, written straight into the buffer (no String per number: a long recording has 100 000).
  func integer(_ value: Int64) {
    if value < 0 { append(0x2D) }
    // Least significant digit first, then turned round in place.
    let start = count
    var magnitude = value.magnitude
    repeat {
      append(0x30 + UInt8(magnitude % 10))
      magnitude /= 10
    } while magnitude > 0
    turnRound(from: start)
  }

  func null() {
    append(0x6E)
    append(0x75)
    append(0x6C)
    append(0x6C)
  }

  func bool(_ value: Bool) { append(contentsOf: (value ? "true" : "false").utf8) }

  func string(_ value: String) {
    JSONString.write(value) { append($0) }
  }

  /// Appends what `other` wrote: a value written apart (on another thread) at this writer's depth.
  func append(_ other: JSONText) {
    if capacity - count < other.count { grow(to: count + other.count) }
    (storage + count).initialize(from: other.storage, count: other.count)
    count += other.count
  }

  /// Reverses the bytes from `start` on where they lie.
  private func turnRound(from start: Int) {
    var i = start
    var j = count - 1
    while i < j {
      let byte = storage[i]
      storage[i] = storage[j]
      storage[j] = byte
      i += 1
      j -= 1
    }
  }

  private func append(_ byte: UInt8) {
    if count == capacity { grow(to: count + 1) }
    storage[count] = byte
    count += 1
  }

  private func append(contentsOf text: String.UTF8View) {
    for byte in text { append(byte) }
  }

  private func grow(to minimum: Int) {
    let larger = max(minimum, 2 * capacity)
    let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
    moved.initialize(from: storage, count: count)
    storage.deallocate()
    storage = moved
    capacity = larger
  }

  private func separator() {
    append(0x2C)
    append(0x20)
  }

  fileprivate func newline() {
    guard layout == .indented else { return }
    append(0x0A)
    for _ in 0..<(2 * depth) { append(0x20) }
  }

  fileprivate func raw(_ byte: UInt8) { append(byte) }

  /// Writes the fields of one object.
  final class ObjectWriter {
    let json: JSONText
    private(set) var count = 0

    init(json: JSONText) { self.json = json }

    func field(_ key: String, _ value: (JSONText) -> Void) {
      if count > 0 { json.raw(0x2C) }
      count += 1
      json.newline()
      json.string(key)
      json.raw(0x3A)
      if json.layout == .indented { json.raw(0x20) }
      value(json)
    }

    // Keyed values; nil is written as `null`, never left out.
    func string(_ key: String, _ value: String?) { field(key) { j in value.map(j.string) ?? j.null() } }
    func bool(_ key: String, _ value: Bool?) { field(key) { j in value.map(j.bool) ?? j.null() } }
    func integer(_ key: String, _ value: Int?) { field(key) { j in value.map { j.integer(Int64($0)) } ?? j.null() } }
    func number(_ key: String, _ value: Double?) { field(key) { $0.number(value) } }
    func object(_ key: String, _ body: (ObjectWriter) -> Void) { field(key) { $0.object(body) } }
    /// An array of objects, one per item.
    func objects<T>(_ key: String, _ items: [T], _ body: (ObjectWriter, T) -> Void) {
      field(key) { j in j.array(items) { j, item in j.object { body($0, item) } } }
    }
  }
}
