import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

#if canImport(Glibc)
  import Glibc
#endif

/// A key the system refuses to watch says so instead of going silently blind.
@Suite("Watch errors")
struct WatchErrorTests {
  /// The real disk, watched by a watcher whose every watch is refused, as past the system's
  /// limit.
  final class RefusedWatches: ForwardingFileSystem, @unchecked Sendable {
    let watcher = FolderWatcher(faultHook: { operation, _ in
      operation == .addWatch ? ENOSPC : nil
    })
    init() { super.init(LocalFileSystem()) }
    override func watch(
      _ url: URL, onChange: @escaping @Sendable () -> Void
    ) -> StorageSubscription? {
      watcher.subscribe(url, onChange: onChange)
    }
  }

  @Test("A refused watch shows in watchError, naming the file and the limit")
  func refusedWatchIsVisible() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("items.json")
    let context = StorageContext(
      name: "refused watches", fileSystem: RefusedWatches(), isIsolated: true
    ) { _ in InMemoryPreferences() }
    let items = StorageContext.withValue(context) { Shared(.fileStorage(url), default: 0) }
    let error = try #require(items.watchError)
    #expect(String(describing: error).contains(url.path))
    #expect(String(describing: error).contains("max_user_watches"))

    let watched = StorageContext.withValue(StorageContext.confined(to: folder.url)) {
      Shared(.fileStorage(url), default: 0)
    }
    #expect(watched.watchError == nil)
  }
}
