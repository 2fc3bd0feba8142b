/// Runs `operation` with dependencies changed by `updateValuesForOperation`.
///
/// The change starts from the current scope's values and lasts for `operation`, including the
/// tasks it starts (but not detached ones, which lose task-locals: see ``DependencyValues``).
/// Objects made inside keep the values: a ``Dependency`` remembers its scope.
///
/// ```swift
/// let model = withDependencies {
///   $0.uuid = .incrementing
/// } operation: {
///   EditorModel()
/// }
/// ```
///
/// Nonisolated: `operation` runs where the caller runs.
///
/// - Parameters:
///   - updateValuesForOperation: Changes the values `operation` sees.
///   - operation: The work to run with them.
/// - Returns: What `operation` returns.
/// - Throws: What either closure throws.
@discardableResult
public func withDependencies<R>(
  _ updateValuesForOperation: (inout DependencyValues) throws -> Void,
  operation: () throws -> R
) rethrows -> R {
  var values = DependencyValues.current
  try updateValuesForOperation(&values)
  return try values.scope(operation)
}

/// Runs the asynchronous `operation` with dependencies changed by `updateValuesForOperation`.
///
/// The change starts from the current scope's values and lasts for `operation`, including the
/// tasks it starts (but not detached ones, which lose task-locals: see ``DependencyValues``).
///
/// ```swift
/// await withDependencies {
///   $0.continuousClock = clock
/// } operation: {
///   await model.refresh()
/// }
/// ```
///
/// `operation` runs on the caller's actor (`isolation`).
///
/// - Parameters:
///   - isolation: The actor `operation` runs on: the caller's.
///   - updateValuesForOperation: Changes the values `operation` sees.
///   - operation: The work to run with them.
/// - Returns: What `operation` returns.
/// - Throws: What either closure throws.
@discardableResult
public func withDependencies<R>(
  isolation: isolated (any Actor)? = #isolation,
  _ updateValuesForOperation: (inout DependencyValues) async throws -> Void,
  operation: () async throws -> R
) async rethrows -> R {
  var values = DependencyValues.current
  try await updateValuesForOperation(&values)
  return try await values.scope(operation)
}
