import Platform

/// Items made on a thread of their own, handed in order to the thread that calls `next()`: the stages of
/// `stressmon analyze` (reading the CSV, detecting beats, the rest) overlap on two cores. Bounded: at most
/// `capacity` items wait, so a fast producer never holds a whole recording.
///
/// A side that waits is woken only when half the queue's worth is ready for it (or at the end), and then works
/// through that much at once: waking at every item cost 1 700 thread switches on a long recording, on two cores
/// as much time as writing its JSON. (The consumer waits only on an empty queue and the producer only on a full
/// one, so the count passes the waking mark while the other sleeps.)
///
/// Locking: `queue`, `head`, `finished`, `failure` and `cancelled` are read and written only with `mutex` held;
/// `changed` is broadcast when a waiting side may go on (the waking mark, the end, a stop). `produce` is called
/// only by the producer thread once `start()` has been called (or only by the caller of `next()` when no thread
/// could be made). Hence `@unchecked Sendable`.
final class ThreadPipe<Item, Failure: Error>: @unchecked Sendable {
  private let produce: () throws(Failure) -> Item?
  private let capacity: Int
  /// Items (or free places) that make it worth waking the other side.
  private let wakeAfter: Int
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private var queue: [Item] = []
  private var head = 0
  private var finished = false
  private var cancelled = false
  private var failure: Failure?
  private var thread: pthread_t?

  /// `produce` gives the items in order, then nil; an error it throws ends the stream and comes out of `next()`
  /// after the items made before it.
  init(capacity: Int = 4, produce: @escaping () throws(Failure) -> Item?) {
    self.produce = produce
    self.capacity = max(1, capacity)
    wakeAfter = max(1, self.capacity / 2)
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(changed, nil)
  }

  deinit {
    stop()
    pthread_cond_destroy(changed)
    pthread_mutex_destroy(mutex)
    changed.deallocate()
    mutex.deallocate()
  }

  /// Starts the producing thread; if a thread cannot be created, `next()` produces on the caller's thread. The
  /// thread holds no reference of its own: `deinit` stops and joins it before the pipe goes away.
  func start() {
    // A C thread function cannot name a generic type: the thread gets a plain box with the work. It holds the pipe
    // unowned, as said above.
    let entry = ThreadEntry { [unowned self] in self.run() }
    let context = Unmanaged.passRetained(entry).toOpaque()
    var created = pthread_t()
    let status = pthread_create(&created, nil, { context in
      Unmanaged<ThreadEntry>.fromOpaque(context!).takeRetainedValue().body()
      return nil
    }, context)
    if status == 0 {
      thread = created
    } else {
      Unmanaged<ThreadEntry>.fromOpaque(context).release()
    }
  }

  /// The next item in order; nil at the end. Rethrows the producer's error at the point it happened.
  func next() throws(Failure) -> Item? {
    guard thread != nil else { return try produce() }
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    while head == queue.count && !finished { pthread_cond_wait(changed, mutex) }
    if head < queue.count {
      let item = queue[head]
      head += 1
      if head == queue.count {
        queue.removeAll(keepingCapacity: true)
        head = 0
      }
      if queue.count - head == capacity - wakeAfter { pthread_cond_broadcast(changed) }
      return item
    }
    if let failure { throw failure }
    return nil
  }

  /// Stops the producing thread (early exit, or after the end) and waits for it: whatever `produce` touches is
  /// the caller's again.
  func stop() {
    guard let running = thread else { return }
    pthread_mutex_lock(mutex)
    cancelled = true
    pthread_cond_broadcast(changed)
    pthread_mutex_unlock(mutex)
    pthread_join(running, nil)
    thread = nil
  }

  private func run() {
    while true {
      let item: Item?
      var error: Failure?
      do throws(Failure) { item = try produce() } catch let e {
        item = nil
        error = e
      }
      pthread_mutex_lock(mutex)
      while queue.count - head >= capacity && !cancelled { pthread_cond_wait(changed, mutex) }
      if cancelled {
        pthread_mutex_unlock(mutex)
        return
      }
      if let item {
        queue.append(item)
      } else {
        failure = error
        finished = true
      }
      if item == nil || queue.count - head == wakeAfter { pthread_cond_broadcast(changed) }
      pthread_mutex_unlock(mutex)
      if item == nil { return }
    }
  }
}

/// The work of a thread `ThreadPipe` starts.
private final class ThreadEntry {
  let body: () -> Void
  init(_ body: @escaping () -> Void) { self.body = body }
}
