import Platform

extension SQLiteConnection {
  /// Creates `path` empty with mode 0600 unless it exists, before SQLite opens it: SQLite would create it 0644, and
  /// gives its -wal and -shm files the database file's mode. Health data, so the owner only. The reason (the
  /// system's text) when it cannot.
  public static func createPrivateFile(_ path: String) -> String? {
    do {
      let file = try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusive], permissions: 0o600)
      try? file.close()
      return nil
    } catch {
      return error == Errno(rawValue: EEXIST) ? nil : error.description
    }
  }
}
