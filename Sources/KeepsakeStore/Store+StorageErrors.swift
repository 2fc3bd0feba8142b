import Keepsake

extension Store {
  /// The load and save errors of the shared values in the state, as they are now: what an app
  /// shows so that its user learns that their data could not be read or saved.
  ///
  /// The state is searched for `Shared` and `SharedReader` values: its properties, and the
  /// properties of nested structures and enumerations (child features), not the elements of
  /// collections. A value that cannot be read is listed once, with its load error; one whose last
  /// save failed, with its save error.
  ///
  /// ```swift
  /// if let problem = store.storageErrors.first {
  ///   showAlert(problem.message)
  /// }
  /// ```
  ///
  /// Reading it in a SwiftUI view observes the errors it reads.
  public var storageErrors: [StorageError] {
    var errors: [StorageError] = []
    var seen = Set<String>()
    StorageError.collect(from: state, depth: 0, into: &errors, seen: &seen)
    return errors
  }
}

/// A shared value of a store's state that could not be read or saved; see
/// ``Store/storageErrors``.
public struct StorageError: Error, Sendable, CustomStringConvertible {
  /// What went wrong.
  public enum Kind: Sendable {
    /// The stored value could not be read: it is left as it is, and changes are not saved over it.
    case load(SharedLoadError)
    /// The last save failed.
    case save(SharedSaveError)
  }

  /// The key of the shared value, as an app writes it.
  public let key: String
  /// What went wrong.
  public let kind: Kind

  /// The error's own description, for people: what happened and what they can do.
  public var description: String {
    switch kind {
    case .load(let error): error.description
    case .save(let error): error.description
    }
  }

  /// How deep into nested state the search goes: features nest a few levels, never dozens.
  static let deepest = 8

  static func collect(
    from value: Any, depth: Int, into errors: inout [StorageError], seen: inout Set<String>
  ) {
    if let source = value as? any SharedErrorSource {
      let key = source.errorSourceDescription
      guard seen.insert(key).inserted else { return }
      if let error = source.loadError {
        errors.append(StorageError(key: key, kind: .load(error)))
      } else if let error = source.saveError {
        errors.append(StorageError(key: key, kind: .save(error)))
      }
      return
    }
    guard depth < deepest else { return }
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .struct, .enum, .optional, .tuple, .class:
      for child in mirror.children {
        collect(from: child.value, depth: depth + 1, into: &errors, seen: &seen)
      }
    default:
      // NB: collections are not searched: a list of a hundred thousand drafts would be walked
      // element by element on every read of the errors.
      return
    }
  }
}
