/// The sync protocol's constants: version, paths, limits and header names. Client and hub both read them from
/// here, so a limit or a path is never spelled twice.
public enum SyncAPI {
  /// The protocol version; every path starts with it.
  public static let version = "v1"

  /// The most rows one ingest request may carry (DESIGN.md "Sync protocol").
  public static let maxBatchRows = 500

  /// The largest request body the hub accepts, compressed or not, and the largest it inflates a gzip body to.
  /// A full batch of 500 rows is ~290 kB of JSON (about 580 bytes a row), so 2 MiB leaves room for optional
  /// fields and longer ids while bounding the memory one request can take.
  public static let maxBodyBytes = 2 * 1024 * 1024

  /// The most rows one feed page returns.
  public static let maxFeedLimit = 1000

  /// The largest `outbox_pending` a device may report (a year of one-minute windows is ~525 600).
  public static let maxOutboxPending = 100_000_000

  /// How far past the hub's clock a row's times may lie (seconds). A synchronised clock is within a second;
  /// five minutes covers a device whose NTP has just stepped. Beyond it a row would show as the latest for
  /// years and win every conflict (`modified_at` in 2096), so the hub refuses it.
  public static let maxClockSkew: Double = 300

  // MARK: - Paths

  /// `POST`: ingest one batch (`IngestRequest` → `IngestResponse`).
  public static let measurementsPath = "/v1/measurements"

  /// `GET`: the latest measurement of a device (`LatestResponse`).
  public static func latestPath(device: String) -> String { "/v1/devices/\(device)/latest" }

  /// `GET /v1/measurements?device=…&since=CURSOR&limit=N`: a page of the incremental feed (`FeedPage`).
  public static let feedPath = measurementsPath

  /// `GET`: liveness and storage check (`HealthResponse`).
  public static let healthPath = "/healthz"
}

/// Identifier rules shared by both sides.
public enum SyncIdentifiers {
  /// What the device-id rule says, for error messages.
  public static let deviceIdRule = "1-64 characters of A-Z a-z 0-9 . _ - (not '.' or '..')"

  /// Device ids: 1-64 characters of `A-Z a-z 0-9 . _ -`, so they are safe in paths, file names and logs; not
  /// `.` or `..`, which name directories in a URL path or a file name.
  public static func isValidDeviceId(_ id: String) -> Bool {
    let utf8 = id.utf8
    guard (1...64).contains(utf8.count), id != ".", id != ".." else { return false }
    return utf8.allSatisfy { byte in
      (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        || byte == 0x2E || byte == 0x5F || byte == 0x2D
    }
  }

  /// Boot ids (`/proc/sys/kernel/random/boot_id`, a UUID): 1-64 characters of `A-Z a-z 0-9 . _ : -`, so a
  /// row never carries control characters or markup into logs and pages.
  public static func isValidBootId(_ id: String) -> Bool {
    let utf8 = id.utf8
    guard (1...64).contains(utf8.count) else { return false }
    return utf8.allSatisfy { byte in
      (byte >= 0x30 && byte <= 0x3A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        || byte == 0x2E || byte == 0x5F || byte == 0x2D
    }
  }

  /// Row ids: lowercase RFC 4122 text, 8-4-4-4-12 hex digits (what `MeasurementRecord.id` promises).
  public static func isValidRowId(_ id: String) -> Bool {
    let bytes = Array(id.utf8)
    guard bytes.count == 36 else { return false }
    for (index, byte) in bytes.enumerated() {
      if index == 8 || index == 13 || index == 18 || index == 23 {
        guard byte == 0x2D else { return false }
      } else {
        guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) else { return false }
      }
    }
    return true
  }
}
