#if os(Linux) || os(Android)
  import Dispatch
  import Foundation

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #elseif canImport(Android)
    import Android
  #endif

  /// The process's one inotify instance, created on the first watch and read by one dispatch
  /// source.
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
    private let queue: DispatchQueue
    private let faultHook: WatchFaultHook?
    private var descriptor: Int32 = -1
    private var source: (any DispatchSourceRead)?

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

    mutating func shutDown() {
      // The cancel handler closes the descriptor once no event handler runs any more.
      source?.cancel()
      source = nil
      descriptor = -1
    }

    /// Creates the instance and its reader; returns why it could not.
    private mutating func start() -> WatchCallFailure? {
      if let code = faultHook?(.createInstance, "") {
        return WatchCallFailure(operation: .createInstance, code: code)
      }
      let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      guard fd >= 0 else { return WatchCallFailure(operation: .createInstance, code: errno) }
      let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
      let deliver = self.deliver
      source.setEventHandler {
        let events = Self.drain(fd)
        if !events.isEmpty { deliver(events) }
      }
      source.setCancelHandler { close(fd) }
      source.resume()
      self.descriptor = fd
      self.source = source
      return nil
    }

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
