/// Reads a dependency from ``DependencyValues``, by key path.
///
/// ```swift
/// struct Inbox: Reducer {
///   @Dependency(\.uuid) var uuid
///
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     case .add(let text):
///       state.$drafts.withLock { $0.append(Draft(id: uuid(), body: text)) }
///       ...
///   }
/// }
/// ```
///
/// The wrapper remembers the scope it was made in, like a `Shared` reference remembers its
/// storage context. A read inside a scope (``withDependencies(_:operation:)-(_,()->R)``, a
/// store's reducer or effect) sees that scope's values, over the remembered ones; a read outside
/// any scope, such as in a `Task.detached`, sees the remembered scope. So a reducer made by a
/// store, or a view model made inside `withDependencies`, keeps its dependencies wherever its
/// code runs.
///
/// Under test, reading a dependency the test did not set, whose key has no
/// ``DependencyKey/testValue``, fails the test; the failure names the dependency and the line of
/// this declaration.
///
/// `Dependency` is `Sendable` and nonisolated: read it from any executor.
@propertyWrapper
public struct Dependency<Value: Sendable>: Sendable {
  private let keyPath: KeyPath<DependencyValues, Value> & Sendable
  private let remembered: DependencyValues
  private let site: DependencySite

  /// Reads the dependency at `keyPath`, such as `\.uuid`.
  public init(
    _ keyPath: KeyPath<DependencyValues, Value> & Sendable,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.keyPath = keyPath
    self.remembered = DependencyValues.current
    self.site = DependencySite(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// The dependency's value in the current scope.
  public var wrappedValue: Value {
    var values = remembered
    if let scoped = DependencyValues.scoped {
      values = remembered.overridden(by: scoped)
      values.context = scoped.context
    }
    return DependencySite.$current.withValue(site) { values[keyPath: keyPath] }
  }
}
