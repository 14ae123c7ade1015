import Platform
import TestSupport
import Testing

@Suite("Platform: FileDescriptor, Errno, AtomicFile")
struct FileDescriptorTests {
  @Test("Opening a missing file throws ENOENT, described in the C library's words")
  func missingFile() throws {
    let directory = try TemporaryDirectory("platform")
    defer { directory.remove() }
    let error = #expect(throws: Errno.self) { _ = try FileDescriptor.open(directory.file("none"), .readOnly) }
    #expect(error == .noSuchFileOrDirectory)
    #expect(error?.description == "No such file or directory")
  }

  @Test("writeAll then readAll round-trips 200 KB (several read(2) calls); append adds at the end")
  func roundTrip() throws {
    let directory = try TemporaryDirectory("platform")
    defer { directory.remove() }
    let path = directory.file("data")
    let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
    let writer = try FileDescriptor.open(path, .writeOnly, options: [.create, .truncate], permissions: 0o600)
    try writer.writeAll(bytes)
    try writer.sync()
    try writer.close()
    let appender = try FileDescriptor.open(path, .writeOnly, options: .append)
    try appender.writeAll("tail".utf8)
    try appender.close()
    let reader = try FileDescriptor.open(path, .readOnly)
    defer { try? reader.close() }
    let back = try reader.readAll(chunk: 4_096)
    #expect(back.count == bytes.count + 4)
    #expect(Array(back.prefix(bytes.count)) == bytes)
    #expect(Array(back.suffix(4)) == Array("tail".utf8))
  }

  @Test("A descriptor that is not open cannot be read: EBADF, not a crash")
  func closedDescriptor() throws {
    // Not the number of a file just closed: in the parallel suite another test's open can take that number at once.
    // -1 is never open.
    let file = FileDescriptor(rawValue: -1)
    let error = #expect(throws: Errno.self) { _ = try file.readAll() }
    #expect(error == Errno(rawValue: EBADF))
  }

  @Test("AtomicFile: nil for a missing file, replaces contents whole, names the path and step when it cannot")
  func atomicFile() throws {
    let directory = try TemporaryDirectory("platform")
    defer { directory.remove() }
    let path = directory.file("state.pbm")
    #expect(try AtomicFile.read(path) == nil)
    try AtomicFile.write(Array("first, longer".utf8), to: path)
    try AtomicFile.write(Array("second".utf8), to: path)
    #expect(try AtomicFile.read(path) == Array("second".utf8))
    let missing = directory.file("no-such-directory/x.png")
    let error = #expect(throws: FileError.self) { try AtomicFile.write([1], to: missing) }
    #expect(error?.operation == "create" && error?.errno == ENOENT)
    #expect(error?.description.hasPrefix(missing + ": create failed: No such file or directory") == true)
  }

  @Test("SplitMix64 gives the reference sequence (Vigna's splitmix64.c, seed 0)")
  func splitMix64() {
    var generator = SplitMix64(seed: 0)
    #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
    #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
    #expect(generator.next() == 0x06C4_5D18_8009_454F)
  }
}
