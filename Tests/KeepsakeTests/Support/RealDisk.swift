import Foundation
import KeepsakeTesting

@testable import Keepsake

/// Storage contexts on the real disk, each standing for one process: its own references over the
/// files of a temporary folder, with the real file system's links, locks and name limits.
struct RealDisk {
  /// The folder the test's files are in; removed when the last copy of this goes away.
  let folder: TemporaryFolder
  private let keptAway: KeptAwayCleanup

  init() throws {
    folder = try TemporaryFolder()
    keptAway = KeptAwayCleanup(folder: folder.url.path)
  }

  /// The clock the processes' coalesced saves run on, moved only by a test.
  ///
  /// A change a test keeps pending stays pending however long the test runs. Locks are still
  /// waited for in real time, by the file system.
  let clock = StorageClock.manual()

  /// A fresh context on the real disk, as one more process sees it.
  func process(_ name: String = "process") -> StorageContext {
    .inMemory(name: name, fileSystem: LocalFileSystem(), clock: clock)
  }

  /// The URL of `name` in the folder.
  func file(_ name: String) -> URL { folder.file(name) }

  /// A `Shared` of `key` in `context`.
  func shared<Value>(
    _ key: some SharedKey<Value>, in context: StorageContext, default value: Value
  ) -> Shared<Value> {
    StorageContext.withValue(context) { Shared(key, default: value) }
  }
}

/// Removes, when the last copy of a disk goes, the changes its keys kept away from their files
/// (a test that removes a file's folder under a key): an isolated context keeps them in a folder
/// of the machine's temporary folder, which every test shares.
private final class KeptAwayCleanup: Sendable {
  let folder: String

  init(folder: String) { self.folder = folder }

  deinit {
    let away = UnsavedChange.awayFolder(in: .inMemory(name: "cleanup"))
    let names = (try? FileManager.default.contentsOfDirectory(atPath: away.path)) ?? []
    for name in names where name.contains(".unsaved-") {
      let url = away.appendingPathComponent(name)
      guard let data = try? Data(contentsOf: url),
        let file = try? UnsavedChange.decoder.decode(UnsavedChange.self, from: data).file,
        file.hasPrefix(folder + "/")
      else { continue }
      try? FileManager.default.removeItem(at: url)
    }
  }
}
