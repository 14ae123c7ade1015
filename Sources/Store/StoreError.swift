import Platform
import SQLite

/// Why the store cannot do what was asked, in words that say what to do next. Every SQLite failure is mapped to
/// one of these cases, so the daemon can react per category (disk full → make room; read-only, corrupt → keep
/// measuring from memory and report) and the CLI can pick a sysexits code.
public enum StoreError: Error, Sendable, CustomStringConvertible {
  /// No database at the path, and the caller did not ask to create one.
  case missing(path: String)
  /// The database file or its directory cannot be created or opened (permissions, missing parent, not a file).
  case cannotOpen(path: String, reason: String)
  /// The disk is full (or the database hit its page limit); nothing of the failed batch was written.
  case diskFull(path: String)
  /// The file or its file system is read-only.
  case readOnly(path: String, reason: String)
  /// The file is damaged, or is not a SQLite database.
  case corrupt(path: String, detail: String)
  /// A SQLite database, but not one of ours.
  case notAStressmonDatabase(path: String)
  /// Written by a newer stressmon with a schema this binary does not know.
  case newerSchema(path: String, found: Int, supported: Int)
  /// Another process holds the write lock for longer than the busy timeout.
  case busy(path: String)
  /// A read, write or sync system call failed.
  case io(path: String, detail: String)
  /// Anything else SQLite reported (a bug on our side, most likely).
  case sqlite(path: String, SQLiteError)
  /// An input the store refuses (e.g. a record with an empty id).
  case invalid(String)
  /// The store was closed by its owner.
  case closed(path: String)
  /// Another process (pid, when it wrote one) holds the database's writer lock (`DatabaseLock`).
  case inUse(path: String, pid: Int32?)

  // MARK: - Public

  public var description: String {
    switch self {
    case .missing(let path):
      return "no stressmon database at \(path): nothing has been recorded there yet; run 'stressmon run' to record, "
        + "or pass --db with the right file"
    case .cannotOpen(let path, let reason):
      return "cannot open the database \(path): \(reason); check that the directory exists and is writable by this "
        + "user, or pass --db with another path"
    case .diskFull(let path):
      return "the disk holding \(path) is full: free some space (old exports, logs) or lower the store's size "
        + "limit; measurements are kept in memory meanwhile"
    case .readOnly(let path, let reason):
      return "the database \(path) cannot be written (\(reason)): remount the file system read-write or fix the "
        + "file's permissions; measurements are kept in memory meanwhile"
    case .corrupt(let path, let detail):
      return "the database \(path) is damaged (\(detail)): nothing was deleted; move it aside and start a new one, "
        + "and try 'sqlite3 \(path) .recover' on the old file to rescue its rows"
    case .notAStressmonDatabase(let path):
      return "\(path) is a SQLite database but not a stressmon one: pass --db with the stressmon database "
        + "(default /var/lib/stressmon/stressmon.db)"
    case .newerSchema(let path, let found, let supported):
      return "the database \(path) was written by a newer stressmon (schema \(found); this binary knows up to "
        + "\(supported)): upgrade stressmon; the file was not changed"
    case .busy(let path):
      return "the database \(path) is locked by another process for too long: retry, or stop the other writer"
    case .io(let path, let detail):
      return "I/O error on the database \(path) (\(detail)): check the storage medium (dmesg), then retry"
    case .sqlite(let path, let error):
      return "unexpected database error on \(path): \(error); please report it with this message"
    case .invalid(let message):
      return message
    case .closed(let path):
      return "the database \(path) was already closed by this process (a bug in the caller): reopen it"
    case .inUse(let path, let pid):
      let owner = pid.map { "another stressmon (pid \($0))" } ?? "another stressmon"
      return "\(owner) is already measuring into \(path): stop it first (systemctl stop stressmon, or kill "
        + "\(pid.map(String.init) ?? "it")), or give this run its own --db"
    }
  }

  /// A short name for logs, health lines and `--json` output.
  public var category: String {
    switch self {
    case .missing: "missing"
    case .cannotOpen: "cannot_open"
    case .diskFull: "disk_full"
    case .readOnly: "read_only"
    case .corrupt: "corrupt"
    case .notAStressmonDatabase: "not_stressmon"
    case .newerSchema: "newer_schema"
    case .busy: "busy"
    case .io: "io"
    case .sqlite: "sqlite"
    case .invalid: "invalid"
    case .closed: "closed"
    case .inUse: "in_use"
    }
  }

  // MARK: - Mapping

  /// Maps a SQLite failure on the database at `path` to a store error.
  static func from(_ error: SQLiteError, path: String) -> StoreError {
    let errnoValue = error.systemErrno
    if error.isDiskFull || errnoValue == ENOSPC || errnoValue == EDQUOT { return .diskFull(path: path) }
    if errnoValue == EROFS { return .readOnly(path: path, reason: "read-only file system") }
    if error.isReadOnly {
      return .readOnly(path: path, reason: errnoValue == 0 ? error.message : Self.errnoText(errnoValue))
    }
    if error.isCorrupt { return .corrupt(path: path, detail: error.message) }
    if error.isBusy { return .busy(path: path) }
    if error.isCannotOpen {
      let reason = errnoValue == 0 ? error.message : Self.errnoText(errnoValue)
      return .cannotOpen(path: path, reason: reason)
    }
    if error.isIOError {
      let detail = errnoValue == 0 ? error.message : "\(error.message): \(Self.errnoText(errnoValue))"
      return .io(path: path, detail: detail)
    }
    return .sqlite(path: path, error)
  }

  /// Runs `body` and maps any SQLite error to a store error.
  static func mapping<T>(path: String, _ body: () throws -> T) throws(StoreError) -> T {
    do {
      return try body()
    } catch let error as SQLiteError {
      throw from(error, path: path)
    } catch let error as StoreError {
      throw error
    } catch {
      throw .sqlite(path: path, SQLiteError(extendedCode: 1, message: "\(error)", operation: "store"))
    }
  }

  static func errnoText(_ value: Int32) -> String {
    guard let text = strerror(value) else { return "errno \(value)" }
    return String(cString: text)
  }
}
