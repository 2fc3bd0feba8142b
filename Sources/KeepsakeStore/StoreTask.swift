/// The work started by one action sent to a ``Store``: await it, or cancel it.
///
/// ```swift
/// await store.send(.refreshPulled).finish()
/// ```
///
/// `StoreTask` is `Sendable`; its members may be used from any isolation.
public struct StoreTask: Hashable, Sendable {
  let rawValue: Task<Void, Never>?

  /// A task over `tasks`: finishing waits for all of them; cancelling cancels all of them.
  package init(_ tasks: [Task<Void, Never>]) {
    guard !tasks.isEmpty else {
      self.rawValue = nil
      return
    }
    self.rawValue = Task {
      await withTaskCancellationHandler {
        for task in tasks { await task.value }
      } onCancel: {
        for task in tasks { task.cancel() }
      }
    }
  }

  /// Waits until the work has finished (or was cancelled).
  public func finish() async {
    await rawValue?.value
  }

  /// Cancels the work.
  public func cancel() {
    rawValue?.cancel()
  }

  /// Whether the work was cancelled.
  public var isCancelled: Bool { rawValue?.isCancelled ?? true }
}
