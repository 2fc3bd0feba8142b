import Foundation
import Synchronization

// Parts that may go missing: an element of an `Identifiable` collection, followed by its `id`,
// and the value of an optional while it is not `nil`. Each keeps the last value it saw, so reads
// never crash, and a change made while it is missing is dropped, with a warning naming the key.

/// An element of an `Identifiable` collection, followed by its `id`.
final class ElementPart<Collection>: Sendable, DescribedPart
where
  Collection: MutableCollection & RandomAccessCollection & Sendable,
  Collection.Element: Identifiable & Sendable, Collection.Element.ID: Sendable
{
  let parent: SharedTarget<Collection>
  let id: Collection.Element.ID
  let last: Mutex<Collection.Element>

  init(parent: SharedTarget<Collection>, element: Collection.Element) {
    self.parent = parent
    self.id = element.id
    self.last = Mutex(element)
  }

  var partDescription: String { "[id: \(String(reflecting: id))]" }

  func read() -> Collection.Element {
    guard let current = parent.value.first(where: { $0.id == id }) else {
      return last.withLock { $0 }
    }
    last.withLock { $0 = current }
    return current
  }

  func modify(_ body: SharedPath<Collection.Element>.Change) throws -> PartGone? {
    var found = false
    let parentMissing = try parent.modify { collection in
      guard let index = collection.firstIndex(where: { $0.id == id }) else { return }
      found = true
      try withUnsafeMutablePointer(to: &collection[index]) { try body(.init($0)) }
      last.withLock { [element = collection[index]] in $0 = element }
    }
    if found { return parentMissing }
    var copy = last.withLock { $0 }
    try withUnsafeMutablePointer(to: &copy) { try body(.init($0)) }
    return PartGone(MissingPartError(what: "the element \(id)", keyID: parent.root.keyID))
  }
}

/// The value of an optional, while it is not `nil`.
final class UnwrappedPart<Wrapped: Sendable>: Sendable, DescribedPart {
  let parent: SharedTarget<Wrapped?>
  let last: Mutex<Wrapped>

  init(parent: SharedTarget<Wrapped?>, value: Wrapped) {
    self.parent = parent
    self.last = Mutex(value)
  }

  var partDescription: String { "!" }

  func read() -> Wrapped {
    guard let current = parent.value else { return last.withLock { $0 } }
    last.withLock { $0 = current }
    return current
  }

  func modify(_ body: SharedPath<Wrapped>.Change) throws -> PartGone? {
    var found = false
    let parentMissing = try parent.modify { optional in
      guard var value = optional else { return }
      found = true
      defer {
        optional = value
        last.withLock { [value] in $0 = value }
      }
      try withUnsafeMutablePointer(to: &value) { try body(.init($0)) }
    }
    if found { return parentMissing }
    var copy = last.withLock { $0 }
    try withUnsafeMutablePointer(to: &copy) { try body(.init($0)) }
    return PartGone(MissingPartError(what: "the value", keyID: parent.root.keyID))
  }
}

extension SharedTarget {
  /// Changes the value through its root's lock; returns what is missing when the part is gone.
  @inlinable
  func modify(_ body: (inout Value) throws -> Void) throws -> PartGone? {
    guard path != nil else {
      try reference.withLock(body)
      return nil
    }
    return try path!.modify(object, path!.state, path!.offset) { part in
      try body(&part.assumingMemoryBound(to: Value.self).pointee)
    }
  }
}

extension Shared {
  /// A shared reference to the value of `base` while it is not `nil`, or `nil` when it is.
  ///
  /// Changes write through to `base` and are saved by its key. If `base` becomes `nil` later,
  /// reads return the last value seen and changes are dropped, with a warning, rather than
  /// crash. Nonisolated.
  public init?(_ base: Shared<Value?>) {
    let parent = base.current
    guard let value = parent.value else { return nil }
    let path = SharedPath<Value>(
      state: UnwrappedPart(parent: parent, value: value), offset: -1,
      read: { _, state, _ in unsafeDowncast(state, to: UnwrappedPart<Value>.self).read() },
      modify: { _, state, _, body in
        try unsafeDowncast(state, to: UnwrappedPart<Value>.self).modify(body)
      })
    self.init(projection: SharedTarget(root: parent.root, path: path))
  }
}

extension Shared
where
  Value: MutableCollection & RandomAccessCollection, Value.Element: Identifiable & Sendable,
  Value.Element.ID: Sendable
{
  /// A shared reference to each element, bound to its `id`: it stays on its element when the
  /// collection is reordered or grows, and writes through to this value.
  ///
  /// Nonisolated.
  ///
  /// ```swift
  /// ForEach($drafts.elements, id: \.id) { draft in DraftRow(draft: draft) }
  /// ```
  ///
  /// A reference whose element was removed keeps reading the element's last value; a change
  /// through it is dropped with a warning (``update(_:)`` throws ``MissingPartError``).
  public var elements: [Shared<Value.Element>] {
    let parent = current
    return parent.value.map { Shared<Value.Element>(element: $0, of: parent) }
  }

  /// A shared reference to the element with `id`, or `nil` when there is none.
  ///
  /// Nonisolated.
  public subscript(id id: Value.Element.ID) -> Shared<Value.Element>? {
    let parent = current
    guard let element = parent.value.first(where: { $0.id == id }) else { return nil }
    return Shared<Value.Element>(element: element, of: parent)
  }
}

extension Shared {
  /// The reference of `element` in `parent`, followed by its `id`.
  fileprivate init<Collection>(element: Value, of parent: SharedTarget<Collection>)
  where
    Collection: MutableCollection & RandomAccessCollection & Sendable,
    Collection.Element == Value, Value: Identifiable, Value.ID: Sendable
  {
    let path = SharedPath<Value>(
      state: ElementPart(parent: parent, element: element), offset: -1,
      read: { _, state, _ in unsafeDowncast(state, to: ElementPart<Collection>.self).read() },
      modify: { _, state, _, body in
        try unsafeDowncast(state, to: ElementPart<Collection>.self).modify(body)
      })
    self.init(projection: SharedTarget(root: parent.root, path: path))
  }
}

extension Shared: Identifiable where Value: Identifiable {
  /// The identity of the value.
  public var id: Value.ID { wrappedValue.id }
}
