import CLinuxShim
import Platform
import Synchronization

/// A spidev node (`/dev/spidevB.C`), opened and configured once, written in chunks the kernel accepts.
///
/// Locking: the file descriptor lives in a `Mutex`, so concurrent writers cannot interleave bytes of two
/// transfers and `close()` cannot race a transfer.
public final class SPIDevice: SPITransport {
  // MARK: - Properties

  public let path: String
  public let configuration: SPIConfiguration
  /// spidev refuses transfers longer than its `bufsiz` module parameter (4096 bytes by default,
  /// drivers/spi/spidev.c); a 2.9" frame is 4736 bytes, so frames go out in chunks of this size.
  public static let maximumTransferBytes = 4096
  private let descriptor: Mutex<Int32>

  // MARK: - Initialization

  /// Opens and configures the node. Throws `DeviceError(kind: .spi)` naming `path` (missing node: SPI not
  /// enabled; permission: user not in group `spi`).
  public init(path: String = "/dev/spidev0.0", configuration: SPIConfiguration = .ePaper) throws {
    self.path = path
    self.configuration = configuration
    let fd: Int32
    do {
      fd = try FileDescriptor.open(path, .readWrite).rawValue
    } catch {
      throw DeviceError(kind: .spi, path: path, operation: "open", errno: error.rawValue)
    }
    let status = stressmon_spi_configure(fd, configuration.mode, configuration.bitsPerWord, configuration.speedHz)
    if status < 0 {
      closeDescriptor(fd)
      throw DeviceError(kind: .spi, path: path, operation: "configure mode \(configuration.mode)", errno: -status)
    }
    descriptor = Mutex(fd)
  }

  deinit {
    close()
  }

  // MARK: - Public

  public func write(_ bytes: [UInt8]) throws {
    try descriptor.withLock { fd in
      guard fd >= 0 else {
        throw DeviceError(kind: .spi, path: path, operation: "write", errno: EBADF, hint: "the device was closed")
      }
      var offset = 0
      while offset < bytes.count {
        let count = min(Self.maximumTransferBytes, bytes.count - offset)
        let status = bytes.withUnsafeBufferPointer { buffer in
          stressmon_spi_transfer(fd, buffer.baseAddress! + offset, nil, UInt32(count), configuration.speedHz)
        }
        if status < 0 {
          throw DeviceError(kind: .spi, path: path, operation: "transfer \(count) bytes", errno: -status)
        }
        offset += count
      }
    }
  }

  public func close() {
    descriptor.withLock { fd in
      if fd >= 0 { closeDescriptor(fd) }
      fd = -1
    }
  }
}

private func closeDescriptor(_ fd: Int32) {
  try? FileDescriptor(rawValue: fd).close()
}
