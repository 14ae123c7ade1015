import FoundationEssentials
import Platform
import Synchronization
import SyncWire

/// An outbox kept in one append-only JSON-lines journal (`outbox.jsonl`): every change is one line written with
/// a single `write(2)` and `fsync`ed before the call returns, so a process killed at any instant (SIGKILL, power
/// cut) loses no acknowledged change. A torn last line, if the kernel ever leaves one, is skipped on reopening.
///
/// This is the development and test outbox behind `stressmon sync --outbox DIR`, until the SQLite store's
/// adapter takes over (`--db`). It keeps its whole state in memory, so it suits thousands of rows, not years.
/// One process at a time may own a journal.
public final class FileOutbox: SyncOutbox {
  /// The journal's file name inside the outbox directory.
  public static let journalName = "outbox.jsonl"

  public let path: String
  private let state: Mutex<OutboxState>
  /// The journal's file descriptor; written only under `state`'s lock.
  private let journal: FileDescriptor

  // MARK: - Initialization

  /// Opens (or creates) the outbox in `directory`.
  public init(directory: String) throws {
    path = directory + "/" + Self.journalName
    var isDirectory = false
    if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
      do {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      } catch {
        throw SyncError.outbox("cannot create the outbox directory \(directory): \(error); check the path and permissions")
      }
    } else if !isDirectory {
      throw SyncError.outbox("\(directory) is a file, not an outbox directory; pass a directory to --outbox")
    }
    var loaded = OutboxState()
    var endsWithNewline = true
    if let data = FileManager.default.contents(atPath: path) {
      endsWithNewline = data.last == nil || data.last == 0x0A
      let decoder = JSONDecoder()
      for line in data.split(separator: 0x0A) where !line.isEmpty {
        // A line that does not decode is a torn final write: skip it, the change it held was never acknowledged.
        guard let entry = try? decoder.decode(JournalEntry.self, from: Data(line)) else { continue }
        entry.apply(to: &loaded)
      }
    }
    do {
      journal = try FileDescriptor.open(path, .writeOnly, options: [.append, .create], permissions: 0o600)
    } catch {
      throw SyncError.outbox(
        "cannot open \(path) for writing (errno \(error.rawValue)); check permissions and free space")
    }
    state = Mutex(loaded)
    if !endsWithNewline { try append(Array("\n".utf8)) }
  }

  deinit {
    try? journal.close()
  }

  // MARK: - Public

  /// Queues rows for upload (a row with an existing id replaces it and is pending again). One journal write.
  public func add(_ records: [MeasurementRecord]) throws {
    guard !records.isEmpty else { return }
    let entries = records.map { JournalEntry(add: $0) }
    try state.withLock { state in
      try append(entries.flatMap { try Self.line($0) })
      records.forEach { state.add($0) }
    }
  }

  public func pendingUploads(limit: Int) throws -> [MeasurementRecord] {
    state.withLock { $0.pending(limit: limit) }
  }

  public func markUploaded(ids: [String], at: Double) throws {
    guard !ids.isEmpty else { return }
    try state.withLock { state in
      try append(try Self.line(JournalEntry(uploaded: ids, at: at)))
      state.markUploaded(ids, at: at)
    }
  }

  public func quarantine(id: String, reason: String, at: Double) throws {
    let row = QuarantinedRow(id: id, reason: reason, at: at)
    try state.withLock { state in
      try append(try Self.line(JournalEntry(quarantine: row)))
      state.quarantine(row)
    }
  }

  public func quarantined() throws -> [QuarantinedRow] {
    state.withLock { $0.quarantined }
  }

  @discardableResult
  public func releaseQuarantine(ids: [String]) throws -> Int {
    guard !ids.isEmpty else { return 0 }
    return try state.withLock { state in
      try append(try Self.line(JournalEntry(release: ids)))
      return state.release(ids)
    }
  }

  public func outboxStatus() throws -> OutboxStatus {
    state.withLock { $0.status }
  }

  // MARK: - Private

  private static func line(_ entry: JournalEntry) throws -> [UInt8] {
    var bytes = Array(try JSONEncoder().encode(entry))
    bytes.append(0x0A)
    return bytes
  }

  /// One `write` per change (O_APPEND keeps it contiguous), then `fsync`: durable before we report success.
  private func append(_ bytes: [UInt8]) throws {
    do {
      try journal.writeAll(bytes)
    } catch {
      throw SyncError.outbox("cannot write \(path) (errno \(error.rawValue)); check free space")
    }
    do {
      try journal.sync()
    } catch {
      throw SyncError.outbox("cannot flush \(path) to disk (errno \(error.rawValue)); check the storage device")
    }
  }
}

/// One line of the journal, one change: a row added, rows uploaded (with `at`), a row quarantined or rows released.
private struct JournalEntry: Codable {
  var add: MeasurementRecord?
  var uploaded: [String]?
  var at: Double?
  var quarantine: QuarantinedRow?
  var release: [String]?

  init(add: MeasurementRecord) { self.add = add }
  init(uploaded: [String], at: Double) {
    self.uploaded = uploaded
    self.at = at
  }
  init(quarantine: QuarantinedRow) { self.quarantine = quarantine }
  init(release: [String]) { self.release = release }

  func apply(to state: inout OutboxState) {
    if let add { state.add(add) }
    if let uploaded, let at { state.markUploaded(uploaded, at: at) }
    if let quarantine { state.quarantine(quarantine) }
    if let release { _ = state.release(release) }
  }
}
