import CommandSupport
import FoundationEssentials
import Platform

/// Where command output goes: results to stdout, diagnostics to stderr.
enum CLIOutput {
  static func line(_ text: String) {
    print(text)
  }

  /// A line given as UTF-8 (a long JSON document), written straight to stdout after anything `print` holds.
  static func line(bytes: UnsafeRawBufferPointer) {
    fflush(nil)
    try? FileDescriptor.standardOutput.writeAll(bytes)
    try? FileDescriptor.standardOutput.writeAll(CollectionOfOne(UInt8(0x0A)))
  }

  static func error(_ text: String) {
    CommandMain.error("stressmon", text)
  }

  /// Encodes `value` as one JSON document on stdout (sorted keys, so output is stable for scripts and tests).
  static func json<T: Encodable>(_ value: T, pretty: Bool = true) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    let data = try encoder.encode(value)
    print(String(decoding: data, as: UTF8.self))
  }

  /// Whether stderr is a terminal (progress bars only then).
  static var stderrIsTerminal: Bool { isatty(2) == 1 }
}
