import Synchronization

/// The key paths a reference tells the registrar about, made once per value type.
///
/// NB: a key path into a generic class is instantiated at run time from its mangled pattern, on
/// every use of the literal (measured: about a microsecond, most of an in-memory key's creation,
/// and again on every read of `loadError`); so each value type's set is made once and shared.
struct ReferenceKeyPaths<Value: Sendable> {
  let value: KeyPath<SharedReference<Value>, Value>
  let loadError: KeyPath<SharedReference<Value>, SharedLoadError?>
  let saveError: KeyPath<SharedReference<Value>, SharedSaveError?>
  let lastConflict: KeyPath<SharedReference<Value>, SharedConflict?>
  let isLoading: KeyPath<SharedReference<Value>, Bool>

  /// The set for `Value`, made the first time it is asked for.
  static var shared: ReferenceKeyPaths {
    let type = ObjectIdentifier(SharedReference<Value>.self)
    if let made = KeyPathCache.sets.withLock({ $0[type] })?.paths as? ReferenceKeyPaths {
      return made
    }
    let made = ReferenceKeyPaths(
      value: \.value, loadError: \.loadError, saveError: \.saveError,
      lastConflict: \.lastConflict, isLoading: \.isLoading)
    KeyPathCache.sets.withLock { $0[type] = KeyPathCache.Entry(paths: made) }
    return made
  }
}

/// The key path sets made so far, by reference type.
enum KeyPathCache {
  /// NB: `@unchecked Sendable`: key paths are immutable; the standard library has not marked
  /// them Sendable yet.
  struct Entry: @unchecked Sendable {
    let paths: Any
  }

  static let sets = Mutex<[ObjectIdentifier: Entry]>([:])
}
