import Keepsake

extension StorageContext {
  /// A fresh context on the real disk, with its own references and in-memory preferences.
  ///
  /// NB: not ``StorageContext/live``: references are cached per context, so a check that must
  /// read the file again (not a cached value) needs a context of its own. Campaigns never touch
  /// preferences, so none are written.
  public static func disk(name: String) -> StorageContext {
    disk(name: name, calls: .live)
  }

  /// The same, its file system making its system calls through `calls` (timed ones, say).
  package static func disk(name: String, calls: SystemCalls) -> StorageContext {
    StorageContext(name: name, fileSystem: calls.fileSystem, isIsolated: false) { _ in
      PreferencesStores.inMemory()
    }
  }
}
