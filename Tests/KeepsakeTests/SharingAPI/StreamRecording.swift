import Observation
import Synchronization

/// The elements a stream delivered, recorded by a task of its own and observable, so a test can
/// wait for them with `waitUntil` and fail, rather than hang, when one never comes.
final class StreamRecording<Element: Sendable>: Observable, Sendable {
  private let registrar = ObservationRegistrar()
  private let storage = Mutex<[Element]>([])
  private let task = Mutex<Task<Void, Never>?>(nil)

  /// Starts recording `stream`.
  init(_ stream: AsyncStream<Element>) {
    let started = Task { [weak self] in
      for await element in stream { self?.append(element) }
    }
    task.withLock { $0 = started }
  }

  deinit { task.withLock { $0?.cancel() } }

  /// Everything delivered so far, in order.
  var elements: [Element] {
    registrar.access(self, keyPath: \.elements)
    return storage.withLock { $0 }
  }

  private func append(_ element: Element) {
    registrar.withMutation(of: self, keyPath: \.elements) {
      storage.withLock { $0.append(element) }
    }
  }
}
