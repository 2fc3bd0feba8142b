#if canImport(Darwin)
  import Darwin
  import Dispatch

  /// Apple platforms' watches: one vnode dispatch source per watched folder, and one per
  /// subscribed file.
  ///
  /// NB: a folder's vnode reports `.write` when an entry is added, removed or renamed into it,
  /// which is what an atomic replace does, and also what a missing subfolder appearing does. It
  /// does not say which entry, so every subscriber of the folder re-checks. It does not report a
  /// file of the folder written in place, so each subscribed file has a source of its own; which
  /// files, and moving a source to the new file after an atomic replace, is the watcher's shared
  /// bookkeeping (`FolderWatcher+Files.swift`).
  struct DispatchFolderWatcher: FolderWatchBackend {
    var deliver: @Sendable ([FolderEvent]) -> Void = { _ in }
    var folderWatchSeesWrites: Bool { false }
    private let queue: DispatchQueue
    private let faultHook: WatchFaultHook?
    private var sources: [Int: SourceHandle] = [:]
    // NB: tokens are counted, not file descriptors: a closed descriptor's number is soon reused,
    // and a late event of the old source must not be taken for the new one's.
    private var nextToken = 0

    init(queue: DispatchQueue, faultHook: WatchFaultHook?) {
      self.queue = queue
      self.faultHook = faultHook
    }

    mutating func addWatch(_ path: String) -> Result<Int, WatchCallFailure> {
      if let code = faultHook?(.addWatch, path) {
        return .failure(WatchCallFailure(operation: .addWatch, code: code))
      }
      return addSource(path, operation: .addWatch, mask: [.write, .rename, .delete]) {
        token, data in
        let gone = !data.isDisjoint(with: [.rename, .delete])
        return gone ? .folderGone(token: token) : .entry(token: token, name: nil)
      }
    }

    mutating func removeWatch(_ token: Int) {
      sources.removeValue(forKey: token)?.source.cancel()
    }

    mutating func addFileWatch(_ path: String) -> Result<Int, WatchCallFailure> {
      if let code = faultHook?(.watchFile, path) {
        return .failure(WatchCallFailure(operation: .watchFile, code: code))
      }
      // NB: `.attrib` too: a writer that puts the time back still changes the status time.
      let mask: DispatchSource.FileSystemEvent = [.write, .extend, .attrib, .delete, .rename]
      return addSource(path, operation: .watchFile, mask: mask) { token, _ in .file(token: token) }
    }

    mutating func removeFileWatch(_ token: Int) {
      sources.removeValue(forKey: token)?.source.cancel()
    }

    mutating func shutDown() {
      for handle in sources.values { handle.source.cancel() }
      sources = [:]
    }

    /// Opens `path` for events only and delivers what `event` makes of each of its source's
    /// events.
    private mutating func addSource(
      _ path: String, operation: WatchFailure.Operation, mask: DispatchSource.FileSystemEvent,
      event: @escaping @Sendable (Int, DispatchSource.FileSystemEvent) -> FolderEvent
    ) -> Result<Int, WatchCallFailure> {
      // NB: `O_NONBLOCK`: the watcher looked for a regular file, but a FIFO put at the path
      // since would block `open` until a writer came.
      let fd = open(path, O_EVTONLY | O_NONBLOCK | O_CLOEXEC)
      guard fd >= 0 else { return .failure(WatchCallFailure(operation: operation, code: errno)) }
      let token = nextToken
      nextToken += 1
      let handle = SourceHandle(
        DispatchSource.makeFileSystemObjectSource(fileDescriptor: fd, eventMask: mask, queue: queue)
      )
      let deliver = self.deliver
      handle.source.setEventHandler { deliver([event(token, handle.source.data)]) }
      handle.source.setCancelHandler { close(fd) }
      handle.source.resume()
      sources[token] = handle
      return .success(token)
    }
  }

  /// Carries a dispatch source into its own handlers.
  private final class SourceHandle: @unchecked Sendable {
    // NB: dispatch sources are thread-safe; `cancel()` may be called from any thread, repeatedly,
    // and `data` is read on the source's own queue.
    let source: any DispatchSourceFileSystemObject
    init(_ source: any DispatchSourceFileSystemObject) { self.source = source }
  }
#endif
