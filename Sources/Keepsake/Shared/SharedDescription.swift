import Foundation

/// How a ``Shared`` and a ``SharedReader`` describe what they read: the key as an app writes
/// it, in swift-sharing's shape, so a description pasted into an issue or a log says which
/// storage it is.
///
/// `Shared<Int>(.appStorage("count"))`, `Shared<Int>(value: 0)`,
/// `Shared<String>(.fileStorage(file:///app/user.json)[dynamicMember: \User.name])`,
/// `SharedReader<Bool>(.inMemory("count").read(as: Bool.self))`.
///
/// NB: a key is described by `String(reflecting:)`, so a custom key's own `description` (or
/// `debugDescription`) is used; Keepsake's keys describe themselves as their factory call. Only a
/// `Shared(value:)` shows a value, as swift-sharing's does: the other descriptions name storage,
/// never the user's data.
enum SharedDescription {
  /// `key` as an app writes it; `value` is the current value, shown for a `Shared(value:)`.
  static func key<Value: Sendable>(_ key: any SharedKey<Value>, value: @autoclosure () -> Value)
    -> String
  {
    if key is UnkeyedValue<Value> { return "value: \(String(reflecting: value()))" }
    return String(reflecting: key)
  }

  /// The part of a projection's description after its root's, from its path's state.
  static func path(_ state: AnyObject) -> String {
    if let keyPath = state as? AnyKeyPath { return "[dynamicMember: \(keyPath)]" }
    if let described = state as? any DescribedPart { return described.partDescription }
    return ""
  }

  /// A string literal of `text`, as the key's factory call would show it.
  static func literal(_ text: String) -> String { String(reflecting: text) }
}

/// A projection's state that says what part it is, for descriptions: `[id: 3]`, `!`.
protocol DescribedPart {
  var partDescription: String { get }
}
