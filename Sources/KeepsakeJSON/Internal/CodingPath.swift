/// A key that the codec makes up itself: an array position or `super`.
///
/// NB: Foundation's coders name array positions `Index 3` (with the integer value 3) and the
/// parent of `superDecoder()` `super`; Keepsake's codec names them the same way, so coding paths
/// in errors are the same whichever codec produced them (``JSONPathComponent`` relies on it).
struct JSONCodingKey: CodingKey {
  var stringValue: String
  var intValue: Int?

  init(stringValue: String) {
    self.stringValue = stringValue
    self.intValue = nil
  }

  init(intValue: Int) {
    self.stringValue = "\(intValue)"
    self.intValue = intValue
  }

  /// The key of an array position.
  init(index: Int) {
    self.stringValue = "Index \(index)"
    self.intValue = index
  }

  static let superKey = JSONCodingKey(stringValue: "super")
}

/// One step of a coding path, kept without building a `CodingKey` until a path is asked for.
enum CodingStep {
  case key(any CodingKey)
  case index(Int)

  var codingKey: any CodingKey {
    switch self {
    case .key(let key): key
    case .index(let index): JSONCodingKey(index: index)
    }
  }
}

/// The coding path of a container, as a list that shares its parents.
///
/// NB: a path is needed only when something fails or a type asks for `codingPath`, so the hot
/// path never builds `[any CodingKey]` arrays: a value carries its container's node and one
/// step. The decoder's containers *are* nodes (subclasses), reused from a pool once nothing
/// refers to them any more, so an object decoded in a loop allocates no node at all.
class CodingPathNode {
  @exclusivity(unchecked) var parent: CodingPathNode?
  /// The node's step in its parent; `nil` for the top level.
  @exclusivity(unchecked) var step: CodingStep?

  init(parent: CodingPathNode?, step: CodingStep?) {
    self.parent = parent
    self.step = step
  }

  /// The path of `node` (the root when `nil`), then `last` if given.
  static func path(_ node: CodingPathNode?, appending last: CodingStep? = nil) -> [any CodingKey] {
    var keys: [any CodingKey] = []
    var current = node
    while let node = current {
      if let step = node.step { keys.append(step.codingKey) }
      current = node.parent
    }
    keys.reverse()
    if let last { keys.append(last.codingKey) }
    return keys
  }
}
