/// A bitmap font: glyphs as ink grids, drawn at an integer scale. Proportional: each glyph advances by its own
/// width plus one pixel of spacing (times the scale).
public struct BitmapFont: Sendable {
  // MARK: - Properties

  /// Rows from the top of a line to the baseline (cap height).
  public let ascent: Int
  /// Rows below the baseline for descenders.
  public let descent: Int
  /// Paper columns between glyphs (before scaling).
  public let spacing: Int
  /// Width of a space (before scaling).
  public let spaceWidth: Int
  private let glyphs: [Character: Glyph]
  /// Drawn for characters the font lacks.
  private let fallback: Character

  /// One character: `rows[r][c]` is ink.
  struct Glyph: Sendable {
    var width: Int
    var rows: [[Bool]]
  }

  // MARK: - Fonts

  /// 5×7 letters, digits and punctuation with descenders: labels, HRV/HR, time, status.
  public static let small = BitmapFont(rows: smallGlyphRows, ascent: 7, descent: 2, spacing: 1, spaceWidth: 3, fallback: "?")
  /// 10×16 digits and a dash: the stress level.
  public static let large = BitmapFont(rows: largeGlyphRows, ascent: 16, descent: 0, spacing: 2, spaceWidth: 6, fallback: "-")

  init(rows: [Character: [String]], ascent: Int, descent: Int, spacing: Int, spaceWidth: Int, fallback: Character) {
    self.ascent = ascent
    self.descent = descent
    self.spacing = spacing
    self.spaceWidth = spaceWidth
    self.fallback = fallback
    // Proportional: empty columns on either side of a glyph are dropped, so "i" is narrower than "m".
    glyphs = rows.mapValues { lines in
      let grid = lines.map { $0.map { $0 == "#" } }
      let inked = grid.flatMap { row in row.indices.filter { row[$0] } }
      guard let first = inked.min(), let last = inked.max() else { return Glyph(width: 0, rows: []) }
      return Glyph(width: last - first + 1, rows: grid.map { row in
        (first...last).map { $0 < row.count && row[$0] }
      })
    }
  }

  // MARK: - Public

  /// Line height at `scale`: ascent + descent + one row of leading.
  public func lineHeight(scale: Int = 1) -> Int { (ascent + descent + 1) * scale }

  /// Whether the font has a glyph for `character` (space always counts).
  public func covers(_ character: Character) -> Bool { character == " " || glyphs[character] != nil }

  /// Width in pixels of `text` at `scale` (no trailing spacing).
  public func width(of text: String, scale: Int = 1) -> Int {
    var total = 0
    for (index, character) in text.enumerated() {
      if index > 0 { total += spacing }
      total += advance(of: character)
    }
    return total * scale
  }

  /// Draws `text` with the top of its line at `y` and returns the x after the last glyph.
  @discardableResult
  public func draw(_ text: String, into image: inout Bitmap, x: Int, y: Int, scale: Int = 1) -> Int {
    var penX = x
    for (index, character) in text.enumerated() {
      if index > 0 { penX += spacing * scale }
      if character != " ", let glyph = glyph(for: character) {
        for (row, bits) in glyph.rows.enumerated() {
          for (column, ink) in bits.enumerated() where ink {
            image.fill(Rect(x: penX + column * scale, y: y + row * scale, width: scale, height: scale))
          }
        }
      }
      penX += advance(of: character) * scale
    }
    return penX
  }

  /// The longest prefix of `text` that fits in `width` at `scale`, with "…" cut to "." if it had to be shortened.
  public func truncated(_ text: String, toWidth width: Int, scale: Int = 1) -> String {
    guard self.width(of: text, scale: scale) > width else { return text }
    var cut = text
    while !cut.isEmpty && self.width(of: cut + ".", scale: scale) > width { cut.removeLast() }
    return cut + "."
  }

  // MARK: - Private

  private func glyph(for character: Character) -> Glyph? { glyphs[character] ?? glyphs[fallback] }

  private func advance(of character: Character) -> Int {
    character == " " ? spaceWidth : (glyph(for: character)?.width ?? spaceWidth)
  }
}
