#if os(Linux) || os(Android)
  import Dispatch
  import Foundation
  import Synchronization

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #elseif canImport(Android)
    import Android
  #endif

  /// The process's one inotify instance, created on the first watch and read by one thread.
  ///
  /// NB: one instance for the whole process, never one per key: the per-user limit of instances
  /// is 128 (`fs.inotify.max_user_instances`), while that of watches is in the hundreds of
  /// thousands. With one instance per key, the 129th key got no watcher at all.
  struct InotifyWatcher: FolderWatchBackend {
    /// The events a folder's watch asks for.
    ///
    /// An atomic replace by another process shows as `CREATE tmp`, `CLOSE_WRITE tmp`,
    /// `MOVED_TO target`; a missing subfolder appearing as `CREATE` or `MOVED_TO`; the folder
    /// renamed away as `MOVE_SELF`. `IGNORED` (the watch died) and `Q_OVERFLOW` always come.
    /// `ONLYDIR` refuses a file where a folder is expected.
    private static let mask = UInt32(
      IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_MOVE_SELF
        | IN_ONLYDIR)

    var deliver: @Sendable ([FolderEvent]) -> Void = { _ in }
    /// `IN_CLOSE_WRITE` on the folder's watch names a file written in place, once its writer
    /// closed it: no watch of the file itself is needed.
    var folderWatchSeesWrites: Bool { true }
    private let queue: DispatchQueue
    private let faultHook: WatchFaultHook?
    private var descriptor: Int32 = -1
    /// The write end of the pipe whose closing stops the reader thread.
    private var stopWriter: Int32 = -1
    /// Set by the reader thread once it has closed its descriptors (for tests).
    let readerStopped = StopFlag()

    /// A flag a thread sets once.
    final class StopFlag: Sendable {
      let isSet = Atomic(false)
    }

    init(queue: DispatchQueue, faultHook: WatchFaultHook?) {
      self.queue = queue
      self.faultHook = faultHook
    }

    mutating func addWatch(_ path: String) -> Result<Int, WatchCallFailure> {
      if descriptor < 0, let failure = start() { return .failure(failure) }
      if let code = faultHook?(.addWatch, path) {
        return .failure(WatchCallFailure(operation: .addWatch, code: code))
      }
      let watch = inotify_add_watch(descriptor, path, Self.mask)
      guard watch >= 0 else { return .failure(WatchCallFailure(operation: .addWatch, code: errno)) }
      return .success(Int(watch))
    }

    mutating func removeWatch(_ token: Int) {
      // NB: fails with EINVAL for a watch the kernel already dropped (its folder was deleted);
      // nothing to do then.
      if descriptor >= 0 { _ = inotify_rm_watch(descriptor, Int32(token)) }
    }

    mutating func addFileWatch(_ path: String) -> Result<Int, WatchCallFailure> {
      // NB: never asked (`folderWatchSeesWrites`).
      .failure(WatchCallFailure(operation: .watchFile, code: ENOSYS))
    }

    mutating func removeFileWatch(_ token: Int) {}

    mutating func shutDown() {
      // The reader thread sees the pipe close, and closes the descriptors once it no longer
      // reads them.
      if stopWriter >= 0 { _ = close(stopWriter) }
      stopWriter = -1
      descriptor = -1
    }

    /// Creates the instance and its reader; returns why it could not.
    ///
    /// NB: a thread of its own blocked in `poll`, rather than a dispatch read source: a source's
    /// event wakes dispatch's manager thread, which wakes a worker to run the handler, two
    /// context switches per batch of events where this thread makes one. Every process watching
    /// a folder gets a batch or two per write to it, so with processes taking turns on one file
    /// the switches are most of a transaction's processor time beside the write itself (see
    /// "Transactions of 8 processes" in `Benchmarks/README.md`). The batch is handed over with
    /// `queue.sync`, which runs it on this thread, serialized with the watcher's other work.
    private mutating func start() -> WatchCallFailure? {
      if let code = faultHook?(.createInstance, "") {
        return WatchCallFailure(operation: .createInstance, code: code)
      }
      let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      guard fd >= 0 else { return WatchCallFailure(operation: .createInstance, code: errno) }
      var ends: [Int32] = [-1, -1]
      guard pipe(&ends) == 0 else {
        let code = errno
        close(fd)
        return WatchCallFailure(operation: .createInstance, code: code)
      }
      for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
      let stopReader = ends[0]
      let deliver = self.deliver
      let queue = self.queue
      let stopped = readerStopped
      let thread = Thread {
        Self.readEvents(fd, until: stopReader) { events in queue.sync { deliver(events) } }
        close(fd)
        close(stopReader)
        stopped.isSet.store(true, ordering: .releasing)
      }
      thread.name = "keepsake.inotify"
      thread.start()
      self.descriptor = fd
      self.stopWriter = ends[1]
      return nil
    }

    /// Waits for events on `fd` and hands each batch to `deliver`, until `stop` closes (or
    /// either descriptor fails).
    private static func readEvents(
      _ fd: Int32, until stop: Int32, deliver: ([FolderEvent]) -> Void
    ) {
      var descriptors = [
        pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
        pollfd(fd: stop, events: Int16(POLLIN), revents: 0),
      ]
      let failed = Int16(POLLERR | POLLHUP | POLLNVAL)
      while true {
        let ready = poll(&descriptors, 2, -1)
        if ready < 0 {
          if errno == EINTR { continue }
          return
        }
        // NB: the pipe's writer closed (`POLLHUP`), or nothing can be read any more.
        if descriptors[1].revents != 0 || descriptors[0].revents & failed != 0 { return }
        // NB: a save is a burst of events (the temporary file made and closed, the swap of
        // names, the removal): woken at its first, the reader lets the rest arrive and reads
        // them together. Woken for each, the watchers of every other process sharing the file
        // took the processor from the saver while it held the lock, which every process waits
        // for.
        usleep(Self.burstWindowMicroseconds)
        let events = drain(fd)
        if !events.isEmpty { deliver(events) }
      }
    }

    /// How long the reader waits after the first event of a burst before reading them all.
    static let burstWindowMicroseconds: UInt32 = 5_000

    /// Reads every queued event from the non-blocking descriptor.
    private static func drain(_ fd: Int32) -> [FolderEvent] {
      var events: [FolderEvent] = []
      let size = 64 * 1024
      let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
      defer { buffer.deallocate() }
      while true {
        let count = read(fd, buffer, size)
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= count {
          let event = (buffer + offset).load(as: inotify_event.self)
          let length = Int(event.len)
          let bytes = UnsafeRawBufferPointer(start: buffer + offset + header, count: length)
          let name = String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
          offset += header + length
          if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
            events.append(.overflow)
          } else if event.mask & UInt32(IN_IGNORED | IN_MOVE_SELF) != 0 {
            events.append(.folderGone(token: Int(event.wd)))
          } else if !name.isEmpty {
            events.append(.entry(token: Int(event.wd), name: name))
          }
        }
      }
      return events
    }
  }
#endif
