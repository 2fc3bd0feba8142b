import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Why a file is not being watched for changes made by other processes.
///
/// A key whose watch could not be set up keeps working (it is watched as soon as a retry succeeds),
/// and ``Shared/watchError`` says why it is blind meanwhile. Without a watch a key still never
/// overwrites another process's data (every save compares the file first: the data-safety rule
/// "Processes that share a file lose nothing"; see the Data safety article), but it only sees their
/// changes when it saves or reloads.
///
/// ```swift
/// if let error = $document.watchError {
///   print(error)  // Cannot watch /data/items.json for changes by other processes: ...
/// }
/// ```
package struct WatchFailure: Error, Equatable, Sendable, CustomStringConvertible {
  /// The system call that failed.
  enum Operation: String, Equatable, Sendable {
    /// Creating the process's watcher (`inotify_init1` on Linux).
    case createInstance
    /// Watching one folder (`inotify_add_watch` on Linux, `open(O_EVTONLY)` on Apple platforms).
    case addWatch
    /// Watching one file for writes in place, where its folder's watch does not report them
    /// (`open(O_EVTONLY)` on Apple platforms). Without it the file is still seen when it is
    /// replaced, created or removed.
    case watchFile
  }

  /// The path of the watched file, as given to the process's watcher.
  var file: String
  /// The folder that could not be watched.
  ///
  /// The file's own folder, or the ancestor a missing folder is awaited in; empty for
  /// ``Operation/createInstance`` and ``Operation/watchFile``.
  var folder: String
  /// The system call that failed.
  var operation: Operation
  /// The `errno` the call failed with.
  var code: Int32

  /// Creates a failure.
  init(file: String, folder: String, operation: Operation, code: Int32) {
    self.file = file
    self.folder = folder
    self.operation = operation
    self.code = code
  }

  package var description: String {
    "Cannot watch \(file) for changes by other processes: \(reason)."
  }

  private var reason: String {
    switch (operation, code) {
    case (.createInstance, EMFILE):
      return "the per-user limit of inotify instances is reached "
        + "(EMFILE; see fs.inotify.max_user_instances)"
    case (.addWatch, ENOSPC):
      return "watching the folder \(folder) would pass the per-user limit of inotify watches "
        + "(ENOSPC; see fs.inotify.max_user_watches)"
    case (.addWatch, EMFILE), (.addWatch, ENFILE):
      return "no file descriptor is left to watch the folder \(folder) (\(name))"
    case (.addWatch, EACCES), (.addWatch, EPERM):
      return "permission to watch the folder \(folder) is denied (\(name))"
    case (.watchFile, EMFILE), (.watchFile, ENFILE):
      return "no file descriptor is left to watch it for writes in place (\(name)); "
        + "it is seen when replaced, not when rewritten in place"
    case (.watchFile, _):
      return "it could not be watched for writes in place (\(name)); "
        + "it is seen when replaced, not when rewritten in place"
    case (.createInstance, _):
      return "the watcher could not be created (\(name))"
    case (.addWatch, _):
      return "the folder \(folder) could not be watched (\(name))"
    }
  }

  private var name: String {
    switch code {
    case EMFILE: return "EMFILE"
    case ENFILE: return "ENFILE"
    case ENOSPC: return "ENOSPC"
    case EACCES: return "EACCES"
    case EPERM: return "EPERM"
    case ENOMEM: return "ENOMEM"
    default: return String(cString: strerror(code))
    }
  }
}
