@_spi(Testing) import Keepsake
import Synchronization

/// Counts the primitive operations of a file system and fails the k-th one, once.
///
/// Installed as an ``InMemoryFileSystem/faultHandler``, which is consulted before every
/// primitive operation (read, write, fsync, rename, remove, create folder, list).
final class FaultCounter: Sendable {
  private struct State {
    var count = 0
    var hit: (operation: FileOperation, path: String)?
  }

  private let target: Int?
  private let fault: FileSystemFault
  private let state = Mutex(State())

  /// Fails operation number `target` (from 1) with `fault`; `nil` fails nothing.
  init(failing target: Int?, with fault: FileSystemFault) {
    self.target = target
    self.fault = fault
  }

  /// How many operations the file system performed (or attempted) so far.
  var count: Int { state.withLock { $0.count } }

  /// The operation that failed, once it has.
  var hit: (operation: FileOperation, path: String)? { state.withLock { $0.hit } }

  var handler: FileSystemFaultHandler {
    { [self] operation, path in
      state.withLock { state in
        state.count += 1
        guard state.count == target else { return nil }
        state.hit = (operation, path)
        return fault
      }
    }
  }
}
