import Synchronization

/// The work started by one action sent to a ``Store``: await it, or cancel it.
///
/// ```swift
/// await store.send(.refreshPulled).finish()
/// ```
///
/// `StoreTask` is `Sendable`; its members may be used from any isolation.
public struct StoreTask: Hashable, Sendable {
  let rawValue: Task<Void, Never>?
  /// The effects the task waits for, and which of them are still running.
  package let work: Work?

  /// The task of one effect, with a description of the action whose effect started it.
  package struct Part: Sendable {
    let task: Task<Void, Never>
    package let origin: String
  }

  /// The effects of a task, remembering which have finished.
  package final class Work: Sendable {
    private let parts: [Part]
    private let finished = Mutex<Set<Int>>([])

    init(_ parts: [Part]) { self.parts = parts }

    func finish(_ index: Int) { _ = finished.withLock { $0.insert(index) } }

    /// The effects still running.
    package var running: [Part] {
      let finished = finished.withLock { $0 }
      return parts.indices.filter { !finished.contains($0) }.map { parts[$0] }
    }
  }

  /// A task over the tasks of `parts`: finishing waits for all of them; cancelling cancels all
  /// of them.
  package init(_ parts: [Part]) {
    guard !parts.isEmpty else {
      self.rawValue = nil
      self.work = nil
      return
    }
    let work = Work(parts)
    self.work = work
    self.rawValue = Task {
      await withTaskCancellationHandler {
        await withDiscardingTaskGroup { group in
          for (index, part) in parts.enumerated() {
            group.addTask {
              await part.task.value
              work.finish(index)
            }
          }
        }
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

  public static func == (lhs: StoreTask, rhs: StoreTask) -> Bool {
    lhs.rawValue == rhs.rawValue
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(rawValue)
  }
}
