import Synchronization

/// `operation` did not finish within its time limit; it was cancelled and is no longer awaited.
public struct TimeLimitExceeded: Error, Sendable, CustomStringConvertible {
  public var seconds: Double

  public var description: String { "no complete answer within \(seconds.formattedSeconds) s" }
}

/// Runs `operation` and returns its result, or throws `TimeLimitExceeded` after `seconds`, or `CancellationError`
/// as soon as the calling task is cancelled, whichever comes first. The caller never waits past the limit: on a
/// time-out or a cancellation the operation's task is cancelled and left to end on its own (a task group would
/// have to await it, and a network call that ignores cancellation could then hold the caller for ever).
public func withTimeLimit<T: Sendable>(
  _ seconds: Double, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
  let race = TimeLimitRace<T>()
  return try await withTaskCancellationHandler {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
      race.start(continuation)
      let work = Task { race.finish(with: await Result(awaiting: operation)) }
      let timer = Task {
        try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
        race.finish(with: .failure(TimeLimitExceeded(seconds: seconds)))
      }
      race.attach(work: work, timer: timer)
    }
  } onCancel: {
    race.finish(with: .failure(CancellationError()))
  }
}

/// The first outcome resumes the continuation; the rest are dropped. Both tasks are cancelled once decided.
private final class TimeLimitRace<T: Sendable>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<T, any Error>?
    var outcome: Result<T, any Error>?
    var tasks: [Task<Void, Never>] = []
  }

  private let state = Mutex(State())

  func start(_ continuation: CheckedContinuation<T, any Error>) {
    let early = state.withLock { state -> Result<T, any Error>? in
      guard let outcome = state.outcome else {
        state.continuation = continuation
        return nil
      }
      return outcome
    }
    // Cancelled before the continuation existed.
    if let early { continuation.resume(with: early) }
  }

  func attach(work: Task<Void, Never>, timer: Task<Void, Never>) {
    let decided = state.withLock { state -> Bool in
      state.tasks = [work, timer]
      return state.outcome != nil
    }
    if decided {
      work.cancel()
      timer.cancel()
    }
  }

  func finish(with outcome: Result<T, any Error>) {
    let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) in
      guard state.outcome == nil else { return (nil, []) }
      state.outcome = outcome
      defer { state.continuation = nil }
      return (state.continuation, state.tasks)
    }
    continuation?.resume(with: outcome)
    tasks.forEach { $0.cancel() }
  }
}

extension Result where Failure == any Error {
  /// The outcome of an async throwing call.
  init(awaiting body: () async throws -> Success) async {
    do {
      self = .success(try await body())
    } catch {
      self = .failure(error)
    }
  }
}
