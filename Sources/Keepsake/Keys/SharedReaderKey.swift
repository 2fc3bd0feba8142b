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
  let loading: @Sendable (Bool) -> Void

  /// Delivers a new value; `nil` returns the reader to its default.
  ///
  /// Ends a loading state.
  public func yield(_ value: Value?) { push(.success(value)) }

  /// Returns the reader to its default, as when the source holds no value.
  ///
  /// Ends a loading state.
  public func yieldReturningInitialValue() { push(.success(nil)) }

  /// Delivers a failure: the reader keeps its value and shows the error in `loadError` until a
  /// value arrives.
  ///
  /// Ends a loading state.
  public func yield(throwing error: any Error) { push(.failure(error)) }

  /// Delivers a value or a failure, as ``yield(_:)`` and ``yield(throwing:)`` do.
  public func yield(with result: Result<Value?, any Error>) { push(result) }

  /// Says that the source is loading again (or, with `false`, no longer is): the reader's
  /// `isLoading` shows it until the next value or failure arrives.
  public func yieldLoading(_ isLoading: Bool = true) { loading(isLoading) }
}

/// A key whose first load is not done on the caller's thread, with ``Shared/isLoading`` true
/// until it has happened.
protocol BackgroundLoadingKey: Sendable {
  /// Whether the first load happens in the background.
  var loadsInBackground: Bool { get }
}

/// A ``SharedReaderKey`` seen as a ``SharedKey``: nothing is loaded synchronously and nothing
/// is saved; loads and pushed values arrive through the reference's outside-change path.
struct ReaderKeyAdapter<Key: SharedReaderKey>: SharedKey, BackgroundLoadingKey,
  CustomStringConvertible
{
  let base: Key
  /// Whether the reference starts the first load itself (not when the caller has loaded, as
  /// `SharedReader(require:)` has, or loads next, as `load(_:)` does).
  let loadsFirst: Bool
  let pending = PendingLoads<Key.Value>()

  init(_ base: Key, loadsFirst: Bool = true) {
    self.base = base
    self.loadsFirst = loadsFirst
  }

  var id: SharedKeyID { base.id }
  var saveTiming: SaveTiming { .never }
  var loadsInBackground: Bool { loadsFirst }
  var description: String { String(reflecting: base) }
  func load(in context: StorageContext) throws -> Key.Value? { nil }
  func save(_ value: Key.Value, in context: StorageContext) throws {}

  func subscribe(
    in context: StorageContext, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    let pending = pending
    let subscriber = SharedSubscriber<Key.Value>(
      push: { result in
        pending.results.withLock { $0.append(result) }
        onChange()
      },
      loading: { isLoading in pending.setLoading(isLoading) })
    let base = self.base
    let first =
      loadsFirst
      ? Task.detached {
        do {
          subscriber.yield(try await base.load())
        } catch {
          subscriber.yield(throwing: error)
        }
      } : nil
    let pushes = base.subscribe(subscriber)
    return StorageSubscription {
      first?.cancel()
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

/// A key that loads asynchronously on request: ``SharedReader/load()`` of a reader key.
protocol AsyncLoadingKey<Value>: SharedKey {
  /// Loads again into `reference`, with its `isLoading` shown meanwhile.
  func loadAgain(into reference: SharedReference<Value>) async throws
}

extension ReaderKeyAdapter: AsyncLoadingKey {
  func loadAgain(into reference: SharedReference<Key.Value>) async throws {
    pending.attach(reference)
    reference.setLoading(true)
    let result: Result<Key.Value?, any Error>
    do {
      result = .success(try await base.load())
    } catch {
      result = .failure(error)
    }
    // NB: delivered as a push is: the reference's machine takes it in (a value, or an error that
    // keeps the value and stays until a load or a push succeeds).
    pending.results.withLock { $0.append(result) }
    try await reference.reloadNow()
    reference.setLoading(false)
    if case .failure = result, let loadError = reference.loadError { throw loadError }
  }
}

extension SharedReference {
  /// Shows (or ends) a loading state: a reader key's `load()`, or its subscriber's
  /// `yieldLoading`.
  ///
  /// NB: the loading state of the first load is the persistence machine's; this is an event
  /// of the same machine.
  func setLoading(_ isLoading: Bool) { send(.loading(isLoading)) }
}

extension SharedReader {
  /// Read-only access to what `key` loads, with a default shown until it has loaded.
  ///
  /// Nonisolated.
  public init(_ key: some SharedReaderKey<Value>, default: @autoclosure () -> Value) {
    self.init(shared: Shared(readerKey: ReaderKeyAdapter(key), default: `default`()))
  }

  /// Read-only access to what `key` loads, with a default shown until it has loaded.
  ///
  /// Nonisolated.
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedReaderKey<Value>) {
    self.init(shared: Shared(readerKey: ReaderKeyAdapter(key), default: wrappedValue()))
  }

  /// Read-only access to what `key` loads, which must load a value: it is loaded first, then the
  /// reader starts from it (without loading again) and follows the key's pushes.
  ///
  /// Nonisolated.
  ///
  /// ```swift
  /// let flags = try await SharedReader(require: RemoteConfigKey())
  /// ```
  ///
  /// A key already in use in the context is returned as it is.
  ///
  /// - Throws: ``SharedLoadError`` when the key loads nothing (its underlying error is
  ///   ``NothingStoredError``) or its load throws.
  public init(require key: some SharedReaderKey<Value>) async throws {
    let context = StorageContext.current
    let adapter = ReaderKeyAdapter(key, loadsFirst: false)
    if let existing = context.existingReference(for: adapter) {
      self.init(shared: Shared(reference: existing))
      return
    }
    let loaded: Value?
    do {
      loaded = try await key.load()
    } catch {
      throw SharedLoadError(keyID: key.id, underlying: error)
    }
    guard let loaded else { throw SharedLoadError(keyID: key.id, underlying: NothingStoredError()) }
    let shared = StorageContext.withValue(context) { Shared(readerKey: adapter, default: loaded) }
    self.init(shared: shared)
  }

  /// Points this reader and every copy of it at what `key` loads, and loads it, with ``isLoading``
  /// true meanwhile.
  ///
  /// Nonisolated.
  ///
  /// While the load runs the reader shows its default (the old key's value is not carried
  /// over); see ``Shared/load(_:)``.
  ///
  /// - Throws: ``SharedLoadError`` when the load throws (the error stays in ``loadError``
  ///   until a load succeeds); ``SharedRebindingError`` for a reader of a part of another value.
  public func load(_ key: some SharedReaderKey<Value>) async throws {
    guard let cell = shared.cell else { throw SharedRebindingError(keyID: key.id) }
    let now = shared.current
    let next = StorageContext.withValue(now.root.context) {
      Shared(readerKey: ReaderKeyAdapter(key, loadsFirst: false), default: now.fallback)
    }
    cell.rebind(to: next.current)
    try await next.load()
  }
}

extension Shared {
  /// The `Shared` of a reader key's reference, which its pushes can reach.
  init<Key: SharedReaderKey<Value>>(readerKey: ReaderKeyAdapter<Key>, default: Value) {
    self.init(reference: StorageContext.current.reference(for: readerKey, default: { `default` }))
    if let reference = current.keyReference, let adapter = reference.key as? ReaderKeyAdapter<Key> {
      adapter.pending.attach(reference)
    }
  }
}

/// What a reader key loaded or pushed, waiting for its reference to take it in, in order, and
/// where its loading state goes.
final class PendingLoads<Value: Sendable>: Sendable {
  let results = Mutex<[Result<Value?, any Error>]>([])
  private struct Loading {
    weak var reference: SharedReference<Value>?
    /// A loading state said before the reference was attached.
    var early: Bool?
  }
  private let loading = Mutex(Loading())

  /// Lets the subscriber's loading state reach `reference`.
  func attach(_ reference: SharedReference<Value>) {
    let early = loading.withLock { state -> Bool? in
      guard state.reference == nil else { return nil }
      state.reference = reference
      defer { state.early = nil }
      return state.early
    }
    if let early { reference.setLoading(early) }
  }

  func setLoading(_ isLoading: Bool) {
    let reference = loading.withLock { state -> SharedReference<Value>? in
      if state.reference == nil { state.early = isLoading }
      return state.reference
    }
    reference?.setLoading(isLoading)
  }
}
