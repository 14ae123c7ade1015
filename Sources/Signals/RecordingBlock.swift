/// A run of contiguous samples from a recording. Blocks end where the file marks lost samples (a `gap` column)
/// so that nothing downstream stitches across a gap.
public struct RecordingBlock: Sendable, Equatable {
  /// Samples lost immediately before this block (0 when it continues the previous block).
  public var gapBefore: Int
  /// Position of the block's first sample on the file's timeline, counting lost samples (row index minus the
  /// header when the file has no gaps, so reference beat indices line up).
  public var firstSampleIndex: Int
  /// One array per requested channel, all the same length, values multiplied by the reader's `scale`.
  public var channels: [[Int32]]

  public init(gapBefore: Int, firstSampleIndex: Int, channels: [[Int32]]) {
    self.gapBefore = gapBefore
    self.firstSampleIndex = firstSampleIndex
    self.channels = channels
  }

  public var count: Int { channels.first?.count ?? 0 }
}
