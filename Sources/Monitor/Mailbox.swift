import Synchronization

/// A hand-over between two tasks with a bounded buffer and a stated overflow rule, so the sender's behaviour when
/// the receiver is slow is a decision, not an accident:
/// - `.coalesce`: only the newest item is kept (display updates: the panel shows the latest state, not a
///   backlog of old ones);
/// - `.dropOldest(n)`: the oldest items go first, counted in `dropped` (terminal events behind a stuck pipe);
/// - `.backpressure(n)`: `send` waits while `n` items are queued (runs at `--speed max`, where the source is a file
///   or a virtual clock and waiting loses nothing). `offer` never waits and never drops: it may go past `n`.
///
/// One receiver. `finish()` ends it: the receiver gets what is queued, then nil; later sends are ignored.
/// Locking: all state is inside one `Mutex`; continuations are resumed after the lock is released.
public final class Mailbox<Element: Sendable>: Sendable {
  public enum Policy: Sendable, Equatable {
    case coalesce
    case dropOldest(Int)
    case backpressure(Int)
  }

  private struct State {
    var items: [Element] = []
    var head = 0
    var finished = false
    var receiver: CheckedContinuation<Element?, Never>?
    var waitingSenders: [CheckedContinuation<Void, Never>] = []
    var dropped = 0
    var count: Int { items.count - head }

    mutating func popFirst() -> Element? {
      guard head < items.count else { return nil }
      let item = items[head]
      head += 1
      if head > 64 && head * 2 > items.count {
        items.removeFirst(head)
        head = 0
      }
      return item
    }
  }

  public let policy: Policy
  private let state = Mutex(State())

  public init(policy: Policy) {
    self.policy = policy
  }

  // MARK: - Sending

  /// Hands `item` over without waiting, applying the policy. Returns false after `finish()`.
  @discardableResult
  public func offer(_ item: Element) -> Bool {
    let receiver = state.withLock { state -> CheckedContinuation<Element?, Never>?? in
      guard !state.finished else { return .none }
      if let receiver = state.receiver {
        state.receiver = nil
        return .some(receiver)
      }
      switch policy {
      case .coalesce:
        state.dropped += state.count
        state.items.removeAll(keepingCapacity: true)
        state.head = 0
      case .dropOldest(let capacity):
        if state.count >= max(1, capacity) {
          _ = state.popFirst()
          state.dropped += 1
        }
      case .backpressure:
        break
      }
      state.items.append(item)
      return .some(nil)
    }
    switch receiver {
    case .none: return false
    case .some(let waiting?):
      waiting.resume(returning: item)
      return true
    case .some(nil): return true
    }
  }

  /// Hands `item` over; with `.backpressure(n)` first waits until fewer than `n` items are queued.
  public func send(_ item: Element) async {
    if case .backpressure(let capacity) = policy {
      while true {
        let full = state.withLock { $0.count >= max(1, capacity) && !$0.finished }
        guard full else { break }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          let resumeNow = state.withLock { state -> Bool in
            guard state.count >= max(1, capacity) && !state.finished else { return true }
            state.waitingSenders.append(continuation)
            return false
          }
          if resumeNow { continuation.resume() }
        }
      }
    }
    offer(item)
  }

  /// No more items: the receiver drains what is queued and then gets nil. Waiting senders are released.
  public func finish() {
    typealias Waiters = (CheckedContinuation<Element?, Never>?, [CheckedContinuation<Void, Never>])
    let (receiver, senders) = state.withLock { state -> Waiters in
      state.finished = true
      defer {
        state.receiver = nil
        state.waitingSenders = []
      }
      return (state.count == 0 ? state.receiver : nil, state.waitingSenders)
    }
    receiver?.resume(returning: nil)
    for sender in senders { sender.resume() }
  }

  // MARK: - Receiving

  /// The next item, waiting for one; nil once finished and drained.
  public func next() async -> Element? {
    await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
      let (ready, sender) = state.withLock { state -> (Element??, CheckedContinuation<Void, Never>?) in
        if let item = state.popFirst() { return (.some(item), Self.releaseSender(&state)) }
        if state.finished { return (.some(nil), nil) }
        state.receiver = continuation
        return (.none, nil)
      }
      sender?.resume()
      if case .some(let value) = ready { continuation.resume(returning: value) }
    }
  }

  /// The next item if one is queued (nil otherwise), without waiting.
  public func poll() -> Element? {
    let (item, sender) = state.withLock { state -> (Element?, CheckedContinuation<Void, Never>?) in
      guard let item = state.popFirst() else { return (nil, nil) }
      return (item, Self.releaseSender(&state))
    }
    sender?.resume()
    return item
  }

  /// Items given up under `.coalesce` or `.dropOldest`.
  public var dropped: Int { state.withLock { $0.dropped } }
  /// Items waiting.
  public var count: Int { state.withLock { $0.count } }

  // MARK: - Private

  /// A sender waiting for room, now that an item left (back-pressure only).
  private static func releaseSender(_ state: inout State) -> CheckedContinuation<Void, Never>? {
    state.waitingSenders.isEmpty ? nil : state.waitingSenders.removeFirst()
  }
}

/// A one-shot stop request: `stop()` from a signal handler or a test, `wait()` from the task that must react.
/// Locking: one `Mutex` holds the flag and the waiting continuations.
public final class StopSignal: Sendable {
  private struct State {
    var stopped = false
    var reason = ""
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextID = 0
  }

  private let state = Mutex(State())

  public init() {}

  /// Requests the stop (idempotent; the first reason is kept).
  public func stop(reason: String = "stop requested") {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      if !state.stopped { state.reason = reason }
      state.stopped = true
      defer { state.waiters = [:] }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  public var isStopped: Bool { state.withLock { $0.stopped } }
  public var reason: String { state.withLock { $0.reason } }

  /// Returns once `stop()` was called, or when the calling task is cancelled.
  public func wait() async {
    let id = state.withLock { state -> Int in
      state.nextID += 1
      return state.nextID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = state.withLock { state -> Bool in
          if state.stopped || Task.isCancelled { return true }
          state.waiters[id] = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
      waiter?.resume()
    }
  }
}
