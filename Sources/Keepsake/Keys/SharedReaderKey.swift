import Foundation
import Synchronization

/// A key that only loads: remote configuration, a bundled resource, a query.
///
/// Read it with ``SharedReader``.
///
/// Loading is asynchronous: the reader shows its default, with ``SharedReader/isLoading`` true,
/// until ``load()`` returns; a failure sets ``SharedReader/loadError``. A key that can tell
/// when its data changes pushes new values (or errors) through ``subscribe(_:)``.
///
/// ```swift
/// struct CatalogueKey: SharedReaderKey {
///   var id: SharedKeyID { SharedKeyID(kind: "catalogue", name: "bundled") }
///   func load() async throws -> [Album]? { try await Catalogue.bundled() }
/// }
///
/// @SharedReader(CatalogueKey()) var albums: [Album] = []
/// ```
public protocol SharedReaderKey<Value>: Sendable {
  /// The type of the value the key loads.
  associatedtype Value: Sendable

  /// The identity of the loaded value; equal identities share one reference.
  var id: SharedKeyID { get }

  /// Loads the value; `nil` means there is none (the default stays).
  ///
  /// Runs in a task of its own, off the caller's thread.
  func load() async throws -> Value?

  /// Starts pushing new values and errors to `subscriber` as the source changes; keep the
  /// returned subscription alive for as long as they are wanted.
  func subscribe(_ subscriber: SharedSubscriber<Value>) -> StorageSubscription?
}

extension SharedReaderKey {
  public func subscribe(_ subscriber: SharedSubscriber<Value>) -> StorageSubscription? { nil }
}

/// Where a ``SharedReaderKey`` pushes what it loads.
public struct SharedSubscriber<Value: Sendable>: Sendable {
  let push: @Sendable (Result<Value?, any Error>) -> Void

  /// Delivers a new value; `nil` returns the reader to its default.
  public func yield(_ value: Value?) { push(.success(value)) }

  /// Delivers a failure: the reader keeps its value and shows the error in `loadError`.
  public func yield(throwing error: any Error) { push(.failure(error)) }
}

/// A key whose first load is not done on the caller's thread, with ``Shared/isLoading`` true
/// until it has happened.
protocol BackgroundLoadingKey: Sendable {
  /// Whether the first load happens in the background.
  var loadsInBackground: Bool { get }
}

/// A ``SharedReaderKey`` seen as a ``SharedKey``: nothing is loaded synchronously and nothing
/// is saved; loads and pushed values arrive through the reference's outside-change path.
struct ReaderKeyAdapter<Key: SharedReaderKey>: SharedKey, BackgroundLoadingKey {
  let base: Key
  private let pending = PendingLoads<Key.Value>()

  init(_ base: Key) { self.base = base }

  var id: SharedKeyID { base.id }
  var saveTiming: SaveTiming { .never }
  var loadsInBackground: Bool { true }
  func load(in context: StorageContext) throws -> Key.Value? { nil }
  func save(_ value: Key.Value, in context: StorageContext) throws {}

  func subscribe(
    in context: StorageContext, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    let subscriber = SharedSubscriber<Key.Value> { result in
      pending.results.withLock { $0.append(result) }
      onChange()
    }
    let base = self.base
    let first = Task.detached {
      do {
        subscriber.yield(try await base.load())
      } catch {
        subscriber.yield(throwing: error)
      }
    }
    let pushes = base.subscribe(subscriber)
    return StorageSubscription {
      first.cancel()
      pushes?.cancel()
    }
  }

  func reload(in context: StorageContext) throws -> SharedLoadResult<Key.Value> {
    guard let next = pending.results.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
      return .unchanged
    }
    guard let value = try next.get() else { return .missing }
    return .value(value)
  }
}

extension SharedReader {
  /// Read-only access to what `key` loads, with a default shown until it has loaded.
  public init(_ key: some SharedReaderKey<Value>, default: @autoclosure () -> Value) {
    self.init(Shared(ReaderKeyAdapter(key), default: `default`()))
  }

  /// Read-only access to what `key` loads, with a default shown until it has loaded.
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedReaderKey<Value>) {
    self.init(Shared(ReaderKeyAdapter(key), default: wrappedValue()))
  }

  /// Whether the first load is still under way (the value is the default until then);
  /// observable.
  public var isLoading: Bool { shared.isLoading }
}

/// What a reader key loaded or pushed, waiting for its reference to take it in, in order.
final class PendingLoads<Value: Sendable>: Sendable {
  let results = Mutex<[Result<Value?, any Error>]>([])
}
