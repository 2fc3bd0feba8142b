/// The work started by one action sent to a ``Store``: await it, or cancel it.
///
/// ```swift
/// await store.send(.refreshPulled).finish()
/// ```
///
/// `StoreTask` is `Sendable`; its members may be used from any isolation.
public struct StoreTask: Hashable, Sendable {
  let rawValue: Task<Void, Never>?

  /// The task of one effect, with a description of the action whose effect started it.
  package struct Part: Sendable {
    package let task: Task<Void, Never>
    package let origin: String

    package init(task: Task<Void, Never>, origin: String) {
      self.task = task
      self.origin = origin
    }
  }

  /// A task over the tasks of `parts`: finishing waits for all of them; cancelling cancels all
  /// of them.
  package init(_ parts: [Part]) {
    guard !parts.isEmpty else {
      self.rawValue = nil
      return
    }
    self.rawValue = Task {
      await withTaskCancellationHandler {
        for part in parts { await part.task.value }
      } onCancel: {
        for part in parts { part.task.cancel() }
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
