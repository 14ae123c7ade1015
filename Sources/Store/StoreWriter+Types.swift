extension StoreWriter {
  public struct Policy: Sendable, Equatable {
    /// Longest a row waits in memory before a commit (seconds). The power-cut loss bound with durability `.full`.
    public var maxDelaySeconds: Double
    public var maxBufferedRows: Int
    /// While the store fails, how often to try again (seconds).
    public var retryIntervalSeconds: Double
    /// Memory bound while the store fails: 12 h of windows (one per 10 s) and 4 h of beats at 60 bpm. Beyond
    /// it the oldest are dropped, counted in `health`.
    public var memoryLimitMeasurements: Int
    public var memoryLimitIBIs: Int
    public var retention: RetentionPolicy
    /// How often retention runs (seconds).
    public var retentionIntervalSeconds: Double
    /// A damaged database is renamed to `<db>.corrupt-<time>` and a new one started (nothing deleted).
    public var moveAsideCorrupt: Bool

    public init(
      maxDelaySeconds: Double = 2, maxBufferedRows: Int = 64, retryIntervalSeconds: Double = 30,
      memoryLimitMeasurements: Int = 4_320, memoryLimitIBIs: Int = 14_400, retention: RetentionPolicy = RetentionPolicy(),
      retentionIntervalSeconds: Double = 3_600, moveAsideCorrupt: Bool = true
    ) {
      self.maxDelaySeconds = maxDelaySeconds
      self.maxBufferedRows = maxBufferedRows
      self.retryIntervalSeconds = retryIntervalSeconds
      self.memoryLimitMeasurements = memoryLimitMeasurements
      self.memoryLimitIBIs = memoryLimitIBIs
      self.retention = retention
      self.retentionIntervalSeconds = retentionIntervalSeconds
      self.moveAsideCorrupt = moveAsideCorrupt
    }
  }

  /// What the daemon shows and logs about storage.
  public struct Health: Sendable, Equatable {
    public var bufferedMeasurements = 0
    public var bufferedIBIs = 0
    /// The failure category (`StoreError.category`) and its message while the store fails; nil when healthy.
    public var errorCategory: String?
    public var errorMessage: String?
    /// Monotonic time of the first failure of the current failing stretch.
    public var failingSince: Double?
    /// Rows given up because memory filled while the store failed.
    public var droppedMeasurements = 0
    public var droppedIBIs = 0
    /// Rows committed by this writer.
    public var committedMeasurements = 0
    public var committedIBIs = 0
    /// Measurements not yet on the hub that disk-full clean-ups deleted while this writer ran (the oldest first;
    /// they may include rows of earlier runs). Also counted in the file (`StoreStatus.droppedUnsyncedMeasurements`).
    public var droppedForSpace = 0
    /// At `close()`: how many of the rows this writer committed are still in the file (committed, less those a
    /// disk-full clean-up deleted). nil before the close, or when the file could not be read then.
    public var keptMeasurements: Int?
    /// Rows handed to the writer stamped later than its clock: a bug in whatever made them (every path of the
    /// daemon stamps at or before the clock). Stored all the same (they are real measurements), logged, counted.
    public var aheadOfClock = 0
    public var lastCommitMonotonic: Double?
    /// Damaged files moved aside, kept for recovery.
    public var movedAside: [String] = []

    public var isHealthy: Bool { errorCategory == nil }

    public init() {}
  }
}
