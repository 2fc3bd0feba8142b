import Foundation
import Keepsake

/// A child process that writes keys of its own into one preferences suite, as one of several
/// processes writing at once.
///
/// swift-corelibs `UserDefaults` can lose every key of one of three such processes (it rewrites
/// the whole suite from its own view); ``FilePreferences`` must keep every key of every process.
public enum PreferencesWriterChild {
  /// Writes `count` keys named `<prefix>-<n>` into the suite at `url`, flushing every few keys
  /// so the processes' writes interleave, and flushes at the end.
  ///
  /// - Returns: The exit status: 0, or 1 when a flush failed.
  public static func run(url: URL, prefix: String, count: Int) -> Int32 {
    let store = PreferencesStores.file(at: url)
    for index in 0..<count {
      store.set(.int(index), forKey: "\(prefix)-\(index)")
      if index % 10 == 9 {
        do { try store.flush() } catch { return 1 }
      }
    }
    do { try store.flush() } catch { return 1 }
    return 0
  }
}
