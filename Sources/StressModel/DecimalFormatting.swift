/// Fixed-decimal text for numbers, without Foundation's `String(format:)` (which pulls in ICU on Linux).
extension Double {
  /// The value rounded to `decimals` places, e.g. `(12.345).formatted(decimals: 1)` → "12.3". NaN → "nan".
  public func formatted(decimals: Int) -> String {
    guard isFinite else { return isNaN ? "nan" : (self > 0 ? "inf" : "-inf") }
    var scale = 1.0
    for _ in 0..<max(0, decimals) { scale *= 10 }
    let scaled = (abs(self) * scale).rounded()
    let negative = self < 0 && scaled > 0
    guard scaled < 9e18 else { return "\(self)" }
    let whole = Int64(scaled)
    let integerPart = whole / Int64(scale)
    var text = negative ? "-" : ""
    text += String(integerPart)
    if decimals > 0 {
      var fraction = String(whole % Int64(scale))
      while fraction.count < decimals { fraction = "0" + fraction }
      text += "." + fraction
    }
    return text
  }
}
