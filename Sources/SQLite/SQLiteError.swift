import CSQLite

/// One failed SQLite call: the extended result code, SQLite's message, the OS errno when the failure came from a
/// system call, and what we were doing. `StoreError` turns it into something a person can act on.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Extended result code (`sqlite3_extended_errcode`), e.g. 266 = SQLITE_IOERR_READ.
  public var extendedCode: Int32
  /// SQLite's message for the connection (`sqlite3_errmsg`), or the code's generic text.
  public var message: String
  /// `sqlite3_system_errno` at the time of the failure; 0 when none.
  public var systemErrno: Int32
  /// The statement or operation that failed (SQL text trimmed to one line, or e.g. "open").
  public var operation: String

  public init(extendedCode: Int32, message: String, systemErrno: Int32 = 0, operation: String) {
    self.extendedCode = extendedCode
    self.message = message
    self.systemErrno = systemErrno
    self.operation = operation
  }

  /// The primary result code (the low byte of the extended code), e.g. SQLITE_FULL.
  public var primaryCode: Int32 { extendedCode & 0xFF }

  public var description: String {
    var text = "SQLite error \(extendedCode) (\(message)) during \(operation)"
    if systemErrno != 0 { text += ", errno \(systemErrno)" }
    return text
  }

  // MARK: - Classification

  /// The write failed because the disk (or the database's page limit) is full.
  public var isDiskFull: Bool { primaryCode == SQLITE_FULL }
  /// The file, directory or file system cannot be written.
  public var isReadOnly: Bool { primaryCode == SQLITE_READONLY || primaryCode == SQLITE_PERM }
  /// The file is damaged or is not a database at all.
  public var isCorrupt: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }
  /// Another connection holds the lock longer than the busy timeout.
  public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
  /// A system-call failure (read, write, fsync, lock, mmap).
  public var isIOError: Bool { primaryCode == SQLITE_IOERR }
  /// The file could not be opened (missing directory, permissions, read-only medium).
  public var isCannotOpen: Bool { primaryCode == SQLITE_CANTOPEN }
  /// A UNIQUE / NOT NULL / CHECK constraint failed.
  public var isConstraint: Bool { primaryCode == SQLITE_CONSTRAINT }
}
