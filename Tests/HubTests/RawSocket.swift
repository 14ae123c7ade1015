import Foundation

/// A plain TCP client for what HTTP libraries will not do: send half a request, trickle a body, hold a socket
/// open. Blocking calls with `poll` timeouts; use it through `offload`, never on the cooperative pool.
final class RawSocket: @unchecked Sendable {
  let descriptor: Int32

  /// `receiveBuffer`: SO_RCVBUF in bytes, set before connecting (a client that reads slowly, or not at all).
  init(port: Int, receiveBuffer: Int32? = nil) throws {
    descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw RawSocketError("socket: errno \(errno)") }
    if var size = receiveBuffer {
      setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    // No close here: a class whose init throws once fully initialized still runs deinit, and a second close
    // could shut a descriptor the hub has since been given (NIO then traps on EBADF).
    guard Self.connectLoopback(descriptor, port: port) else { throw RawSocketError("connect: errno \(errno)") }
  }

  /// Connects `descriptor` to 127.0.0.1:`port`; whether it connected (`errno` says why not).
  static func connectLoopback(_ descriptor: Int32, port: Int) -> Bool {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    return result == 0
  }

  deinit { close(descriptor) }

  func send(_ text: String) throws { try send(Array(text.utf8)) }

  func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes {
        Foundation.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard sent > 0 else { throw RawSocketError("send: errno \(errno)") }
      offset += sent
    }
  }

  /// Reads what arrives within `timeout` seconds, until the peer closes or `until` says the text is complete.
  func read(timeout: Double, until complete: (String) -> Bool = { _ in false }) -> (text: String, closed: Bool) {
    var bytes: [UInt8] = []
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000)))
      guard ready > 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 65_536)
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count <= 0 { return (String(decoding: bytes, as: UTF8.self), true) }
      bytes += buffer[0..<count]
      if complete(String(decoding: bytes, as: UTF8.self)) { break }
    }
    return (String(decoding: bytes, as: UTF8.self), false)
  }

  /// Whether the peer closes the connection within `timeout` seconds.
  func closedByPeer(within timeout: Double) -> Bool {
    read(timeout: timeout).closed
  }

  /// The status code of the first answer read within `timeout`, or nil.
  func status(timeout: Double) -> Int? {
    let (text, _) = read(timeout: timeout) { $0.contains("\r\n\r\n") }
    guard text.hasPrefix("HTTP/1.1 ") else { return nil }
    return Int(text.dropFirst(9).prefix(3))
  }
}

struct RawSocketError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// One HTTP/1.1 answer read off a raw socket.
struct RawAnswer: Sendable {
  var status: Int
  /// Header names lowercased.
  var headers: [String: String]
  var body: String
}

extension RawSocket {
  /// Reads `count` answers in a row (each with a Content-Length body) within `timeout` seconds; fewer when the
  /// peer closes or time runs out. `closed`: whether the peer closed the connection.
  func answers(_ count: Int, timeout: Double) -> (answers: [RawAnswer], closed: Bool) {
    var pending: [UInt8] = []
    var answers: [RawAnswer] = []
    let deadline = Date().addingTimeInterval(timeout)
    var closed = false
    while answers.count < count, Date() < deadline {
      while answers.count < count, let (answer, used) = Self.parseAnswer(pending) {
        answers.append(answer)
        pending.removeFirst(used)
      }
      guard answers.count < count else { break }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 65_536)
      let read = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if read <= 0 {
        closed = true
        break
      }
      pending += buffer[0..<read]
    }
    while answers.count < count, let (answer, used) = Self.parseAnswer(pending) {
      answers.append(answer)
      pending.removeFirst(used)
    }
    return (answers, closed)
  }

  /// The first complete answer in `bytes` and how many bytes it took, or nil.
  static func parseAnswer(_ bytes: [UInt8]) -> (RawAnswer, Int)? {
    let separator: [UInt8] = [13, 10, 13, 10]
    guard bytes.count >= 4,
      let end = (0...(bytes.count - 4)).first(where: { bytes[$0..<($0 + 4)].elementsEqual(separator) })
    else { return nil }
    let lines = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
    guard let first = lines.first, first.hasPrefix("HTTP/1.1 "), let status = Int(first.dropFirst(9).prefix(3)) else {
      return nil
    }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let length = Int(headers["content-length"] ?? "0") ?? 0
    let total = end + 4 + length
    guard bytes.count >= total else { return nil }
    let body = String(decoding: bytes[(end + 4)..<total], as: UTF8.self)
    return (RawAnswer(status: status, headers: headers, body: body), total)
  }
}
