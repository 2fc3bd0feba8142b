import Dispatch
import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Watches a file for changes made by other processes, by watching its folder.
///
/// NB: watching the file alone is not enough. An atomic replace by another process renames a new
/// inode over the old one; a watch on the old inode gets `DELETE_SELF`, `IGNORED` and dies
/// (measured with inotify). The folder's watch sees `MOVED_TO target` and keeps working.
enum FolderWatcher {
  static func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
    #if os(Linux) || os(Android)
      return inotifyWatch(url, onChange: onChange)
    #elseif canImport(Darwin)
      return dispatchWatch(url, onChange: onChange)
    #else
      return nil
    #endif
  }

  #if os(Linux) || os(Android)
    private static func inotifyWatch(
      _ url: URL, onChange: @escaping @Sendable () -> Void
    ) -> StorageSubscription? {
      let folder = url.deletingLastPathComponent().path
      let fileName = url.lastPathComponent
      let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      guard fd >= 0 else { return nil }
      let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE)
      guard inotify_add_watch(fd, folder, mask) >= 0 else {
        close(fd)
        return nil
      }
      let queue = DispatchQueue(label: "keepsake.watch.\(fileName)")
      let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
      source.setEventHandler {
        if readEvents(fd).contains(fileName) { onChange() }
      }
      source.setCancelHandler { close(fd) }
      source.resume()
      let handle = SourceHandle(source)
      return StorageSubscription { handle.source.cancel() }
    }

    /// Drains the inotify descriptor and returns the names the events were about.
    private static func readEvents(_ fd: Int32) -> Set<String> {
      var names: Set<String> = []
      let size = 64 * 1024
      let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
      defer { buffer.deallocate() }
      while true {
        let count = read(fd, buffer, size)
        if count <= 0 { break }
        var offset = 0
        while offset + MemoryLayout<inotify_event>.size <= count {
          let event = (buffer + offset).load(as: inotify_event.self)
          let nameStart = buffer + offset + MemoryLayout<inotify_event>.size
          let length = Int(event.len)
          if length > 0 {
            let bytes = UnsafeRawBufferPointer(start: nameStart, count: length)
            names.insert(String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self))
          }
          offset += MemoryLayout<inotify_event>.size + length
        }
      }
      return names
    }
  #elseif canImport(Darwin)
    private static func dispatchWatch(
      _ url: URL, onChange: @escaping @Sendable () -> Void
    ) -> StorageSubscription? {
      let folder = url.deletingLastPathComponent().path
      let fd = open(folder, O_EVTONLY)
      guard fd >= 0 else { return nil }
      let queue = DispatchQueue(label: "keepsake.watch.\(url.lastPathComponent)")
      // A folder's vnode reports `.write` when an entry is added, removed or renamed into it,
      // which is what an atomic replace does.
      let source = DispatchSource.makeFileSystemObjectSource(
        fileDescriptor: fd, eventMask: [.write, .rename, .delete], queue: queue)
      source.setEventHandler { onChange() }
      source.setCancelHandler { close(fd) }
      source.resume()
      let handle = SourceHandle(source)
      return StorageSubscription { handle.source.cancel() }
    }
  #endif
}

/// Carries a dispatch source into the cancellation closure.
private final class SourceHandle: @unchecked Sendable {
  // NB: dispatch sources are thread-safe; `cancel()` may be called from any thread, repeatedly.
  let source: any DispatchSourceProtocol
  init(_ source: any DispatchSourceProtocol) { self.source = source }
}
