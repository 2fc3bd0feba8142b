#if canImport(Darwin)
  import Darwin
  import Dispatch

  /// Apple platforms' folder watches: one vnode dispatch source per watched folder.
  ///
  /// NB: a folder's vnode reports `.write` when an entry is added, removed or renamed into it,
  /// which is what an atomic replace does, and also what a missing subfolder appearing does. It
  /// does not say which entry, so every subscriber of the folder re-checks.
  struct DispatchFolderWatcher: FolderWatchBackend {
    var deliver: @Sendable ([FolderEvent]) -> Void = { _ in }
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
      let fd = open(path, O_EVTONLY)
      guard fd >= 0 else { return .failure(WatchCallFailure(operation: .addWatch, code: errno)) }
      let token = nextToken
      nextToken += 1
      let handle = SourceHandle(
        DispatchSource.makeFileSystemObjectSource(
          fileDescriptor: fd, eventMask: [.write, .rename, .delete], queue: queue))
      let deliver = self.deliver
      handle.source.setEventHandler {
        let gone = !handle.source.data.isDisjoint(with: [.rename, .delete])
        deliver([gone ? .folderGone(token: token) : .entry(token: token, name: nil)])
      }
      handle.source.setCancelHandler { close(fd) }
      handle.source.resume()
      sources[token] = handle
      return .success(token)
    }

    mutating func removeWatch(_ token: Int) {
      sources.removeValue(forKey: token)?.source.cancel()
    }

    mutating func shutDown() {
      for handle in sources.values { handle.source.cancel() }
      sources = [:]
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
