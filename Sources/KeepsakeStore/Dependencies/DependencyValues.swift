import Keepsake

/// The dependencies a feature reads: one value per ``DependencyKey``, found by key.
///
/// Read a dependency with the ``Dependency`` property wrapper (`@Dependency(\.uuid) var uuid`),
/// or through ``current``. Set dependencies for a scope with
/// ``withDependencies(_:operation:)-(_,()->R)``, for a store with
/// `Store(initialState:reducer:withDependencies:)`, or for a test store with
/// `TestStore(initialState:reducer:withDependencies:)`.
///
/// ```swift
/// let model = withDependencies {
///   $0.uuid = .incrementing
///   $0.date = .constant(Date(timeIntervalSince1970: 0))
/// } operation: {
///   EditorModel()
/// }
/// ```
///
/// The values live in a task-local scope, so the tasks a scope starts inherit it. A ``Store``
/// captures the scope it was made in, and runs its reducer and every effect it starts in it; a
/// ``Dependency`` remembers the scope it was made in. This is the rule a `Shared` reference
/// follows for its storage context: work that leaves the task tree (a `Task.detached`, a
/// Dispatch callback) loses task-locals, so a value captured before it left keeps working.
///
/// A dependency nobody set has its default: ``DependencyKey/liveValue`` in an app,
/// ``DependencyKey/testValue`` when the process runs tests, ``DependencyKey/previewValue`` (the
/// live value unless the key gives one) in an Xcode preview. Defaults are made once per scope
/// root and reused: once per app process (or preview), once per test, once per `TestStore`.
///
/// `DependencyValues` is a `Sendable` value, nonisolated; read and change it from any executor.
public struct DependencyValues: Sendable {
  /// The values set explicitly, by key.
  private var storage: [ObjectIdentifier: any Sendable] = [:]
  /// The keys set on these values since they were taken from their scope: a store's own.
  private var setHere: Set<ObjectIdentifier> = []
  /// Where defaults are made and kept, and where test failures go.
  package var context: DependencyContext

  init(context: DependencyContext) {
    self.context = context
  }

  /// The value of the dependency `key`: the value set in this scope, else its default.
  ///
  /// Use it to declare a dependency's property:
  ///
  /// ```swift
  /// extension DependencyValues {
  ///   nonisolated var musicService: any MusicService {
  ///     get { self[MusicServiceKey.self] }
  ///     set { self[MusicServiceKey.self] = newValue }
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - key: The dependency's key.
  ///   - name: The name failures use for the dependency; the property that reads it, by default.
  public subscript<Key: DependencyKey>(
    key: Key.Type, name: StaticString = #function
  ) -> Key.Value {
    get {
      if let value = storage[ObjectIdentifier(key)] as? Key.Value { return value }
      return context.defaultValue(for: key, name: "\(name)")
    }
    set {
      storage[ObjectIdentifier(key)] = newValue
      setHere.insert(ObjectIdentifier(key))
    }
  }

  // MARK: - Scopes

  /// The values set for the current task, if any.
  @TaskLocal package static var scoped: DependencyValues?

  /// The dependencies of the current scope.
  ///
  /// Inside ``withDependencies(_:operation:)-(_,()->R)``, a store's reducer or one of its
  /// effects: that scope's values. Elsewhere: no values set, so every dependency has its
  /// default, made once for the app process (or, under test, once for the running test).
  ///
  /// Capture it to carry the scope into work that leaves the task tree:
  ///
  /// ```swift
  /// let dependencies = DependencyValues.current
  /// Task.detached {
  ///   withDependencies { $0 = dependencies } operation: { ... }
  /// }
  /// ```
  public static var current: DependencyValues {
    scoped ?? DependencyValues(context: .root(for: StorageContext.current))
  }

  /// These values, with every value `overrides` set replacing this one's; the defaults stay
  /// this scope's.
  func overridden(by overrides: DependencyValues) -> DependencyValues {
    var result = self
    result.storage.merge(overrides.storage) { _, override in override }
    return result
  }

  /// The current scope's values, as the starting point of a store's own: none set here yet.
  package static var currentForStore: DependencyValues {
    var values = current
    values.setHere = []
    return values
  }

  /// A store's values for an action sent inside `scope`: the scope's values win, except those
  /// the store set itself (with `withDependencies:`, or a test store's `dependencies`).
  package func applying(scope: DependencyValues?) -> DependencyValues {
    guard let scope else { return self }
    var result = self
    for (key, value) in scope.storage where !setHere.contains(key) {
      result.storage[key] = value
    }
    return result
  }

  /// Runs `operation` with these values as the current scope.
  package func scope<R>(_ operation: () throws -> R) rethrows -> R {
    try Self.$scoped.withValue(self, operation: operation)
  }

  /// Runs `operation` with these values as the current scope.
  func scope<R>(
    isolation: isolated (any Actor)? = #isolation, _ operation: () async throws -> R
  ) async rethrows -> R {
    try await Self.$scoped.withValue(self, operation: operation, isolation: isolation)
  }
}
