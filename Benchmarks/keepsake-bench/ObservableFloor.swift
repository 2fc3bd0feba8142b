import Observation
import Synchronization

/// The floor of an observed value: the least work that still takes part in Observation.
///
/// What `@Observable` generates for one property (a getter that calls the registrar's
/// `access`, mutations inside `withMutation`), with the value behind a `Mutex` so the class is
/// `Sendable` like a `Shared`. Nothing else: no change tracking, no saving, no first-read flag.
///
/// NB: the key path is made once and stored. A key path literal into a generic class is
/// instantiated on every use, at a cost on every call, which would make the floor slower than
/// what a careful hand-written class costs, and so too easy to beat.
final class ObservableFloor<Value: Sendable>: Observable, Sendable {
  private let storage: Mutex<Value>
  private let registrar = ObservationRegistrar()
  // NB: key paths are immutable; the standard library has not marked them Sendable yet.
  private nonisolated(unsafe) let valueKeyPath: KeyPath<ObservableFloor, Value> = \.value

  init(_ value: Value) {
    storage = Mutex(value)
  }

  var value: Value {
    registrar.access(self, keyPath: valueKeyPath)
    return storage.withLock { $0 }
  }

  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try registrar.withMutation(of: self, keyPath: valueKeyPath) {
      try storage.withLock { value in try body(&value) }
    }
  }
}

/// Counts the calls of an observer's `onChange`, from any thread.
final class ChangeCounter: Sendable {
  private let count = Atomic<Int>(0)

  var value: Int { count.load(ordering: .acquiring) }

  func add() { count.add(1, ordering: .acquiringAndReleasing) }
}
