import Foundation
import Synchronization

/// What every reference offers whatever its value type: the members a projection forwards to
/// the reference of the key that stores it.
protocol SharedRoot: AnyObject, Sendable {
  var keyID: SharedKeyID { get }
  var context: StorageContext { get }
  var loadError: SharedLoadError? { get }
  var saveError: SharedSaveError? { get }
  var lastConflict: SharedConflict? { get }
  var watchError: (any Error)? { get }
  var isLoading: Bool { get }
  func load() async throws
  func save() async throws
  func flush() async throws
  func replaceUnreadableData() async throws -> URL?
  func withTransaction<R>(
    isolation: isolated (any Actor)?, _ body: () async throws -> R
  ) async throws -> R
  /// Calls `onChange` after every change of the value, on the changing thread.
  func observeChanges(_ onChange: @escaping @Sendable () -> Void) -> StorageSubscription
}

extension SharedReference: SharedRoot {
  var keyID: SharedKeyID { key.id }
}

/// A part of another `Shared`'s value, seen as a `Shared` of its own: the member of
/// `$settings.theme`, an element of a collection, an unwrapped optional.
///
/// Subclasses say how to read and change the part through the parent; everything else (errors,
/// saving, transactions) is the parent's key's.
@usableFromInline
class SharedProjection<Value: Sendable>: @unchecked Sendable {
  // NB: subclasses hold only immutable state and `Sendable` parents, or a `Mutex`.
  let root: any SharedRoot

  /// Changes the part through the parent's lock in code specialized for the parent's type,
  /// when the projection was made where that type is known (a member projection); else `nil`.
  ///
  /// NB: a closure, not an override, because a class's generic methods run unspecialized: the
  /// override paid a generic `Mutex` and a key-path walk on every change (13× the parent's own
  /// `withLock` in `keepsake-bench`'s projected-mutation).
  @usableFromInline let specializedModify: Modify?

  /// The shape of ``specializedModify``.
  @usableFromInline typealias Modify = ((inout Value) throws -> Void) throws -> Void

  init(root: any SharedRoot) {
    self.root = root
    self.specializedModify = nil
  }

  init(root: any SharedRoot, specializedModify: @escaping Modify) {
    self.root = root
    self.specializedModify = specializedModify
  }

  /// Runs `body` on the part through ``specializedModify``, with `body`'s own error type.
  ///
  /// > Important: only for a projection that has a ``specializedModify``.
  @inlinable
  final func modifySpecialized<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
    guard let modify = specializedModify else {
      preconditionFailure("\(Self.self) has no specialized change")
    }
    var result: R?
    do {
      try modify { result = try body(&$0) }
    } catch let error as E {
      throw error
    } catch {
      preconditionFailure("a projection's parent threw \(error) of its own")
    }
    guard let result else { preconditionFailure("a projection's parent did not run the change") }
    return result
  }

  /// The current value of the part.
  @usableFromInline var value: Value { preconditionFailure("\(Self.self) must override value") }

  /// The current value of the part, read without taking part in Observation and without
  /// marking the parent read (creating a projection must not make the parent's mutations pay for
  /// observers).
  func peek() -> Value { preconditionFailure("\(Self.self) must override peek()") }

  /// Changes the part through the parent's lock.
  @usableFromInline
  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    preconditionFailure("\(Self.self) must override withLock(_:)")
  }

  /// Changes the part in a transaction of the parent's key.
  func update<R: Sendable>(_ body: @Sendable (inout Value) throws -> R) async throws -> R {
    preconditionFailure("\(Self.self) must override update(_:)")
  }
}

/// A part that may go missing (an optional that became `nil`, an element that was removed): it
/// keeps the last value it saw, so reads never crash, and a change made while it is missing is
/// dropped, with a warning naming the key.
class LastKnownProjection<Parent: Sendable, Value: Sendable>: SharedProjection<Value>,
  @unchecked Sendable
{
  let parent: Shared<Parent>
  let last: Mutex<Value>
  let what: String

  init(parent: Shared<Parent>, initial: Value, what: String) {
    self.parent = parent
    self.last = Mutex(initial)
    self.what = what
    super.init(root: parent.root)
  }

  /// Reads the part out of the parent's value, or `nil` when it is missing.
  func extract(_ parent: Parent) -> Value? { preconditionFailure("must override") }

  /// Changes the part inside the parent's value; returns `nil` when it is missing.
  func modify<R>(_ parent: inout Parent, _ body: (inout Value) throws -> R) rethrows -> R? {
    preconditionFailure("must override")
  }

  override func peek() -> Value {
    extract(parent.reference.peek()) ?? last.withLock { $0 }
  }

  override var value: Value {
    guard let current = extract(parent.wrappedValue) else { return last.withLock { $0 } }
    last.withLock { $0 = current }
    return current
  }

  override func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    let outcome: R? = try parent.withLock { parentValue in
      try modify(&parentValue, body)
    }
    if let outcome { return outcome }
    var copy = last.withLock { $0 }
    let result = try body(&copy)
    MissingPart.warn(what, keyID: root.keyID)
    return result
  }

  override func update<R: Sendable>(_ body: @Sendable (inout Value) throws -> R) async throws -> R {
    // NB: a transaction on a missing part changes nothing and says why, like `withLock`.
    let outcome = try await parent.update { parentValue -> R? in
      try self.modify(&parentValue, body)
    }
    if let outcome { return outcome }
    throw MissingPart(what: what, keyID: root.keyID)
  }
}

/// An element of an `Identifiable` collection, followed by its `id`.
final class ElementProjection<Collection>: LastKnownProjection<Collection, Collection.Element>,
  @unchecked Sendable
where
  Collection: MutableCollection & RandomAccessCollection & Sendable,
  Collection.Element: Identifiable & Sendable, Collection.Element.ID: Sendable
{
  let id: Collection.Element.ID

  init(parent: Shared<Collection>, element: Collection.Element) {
    self.id = element.id
    super.init(parent: parent, initial: element, what: "the element \(element.id)")
  }

  override func extract(_ parent: Collection) -> Collection.Element? {
    parent.first { $0.id == id }
  }

  override func modify<R>(
    _ parent: inout Collection, _ body: (inout Collection.Element) throws -> R
  ) rethrows -> R? {
    guard let index = parent.firstIndex(where: { $0.id == id }) else { return nil }
    return try body(&parent[index])
  }
}

/// The value of a `Shared` optional, while it is not `nil`.
final class UnwrappedProjection<Wrapped: Sendable>: LastKnownProjection<Wrapped?, Wrapped>,
  @unchecked Sendable
{
  override func extract(_ parent: Wrapped?) -> Wrapped? { parent }

  override func modify<R>(_ parent: inout Wrapped?, _ body: (inout Wrapped) throws -> R) rethrows
    -> R?
  {
    guard var value = parent else { return nil }
    let result = try body(&value)
    parent = value
    return result
  }
}

/// A change made through a reference whose part is gone: an element removed from its
/// collection, an optional set to `nil`.
public struct MissingPart: Error, Sendable, CustomStringConvertible {
  /// What is missing.
  public var what: String
  /// The identity of the key whose value it was part of.
  public var keyID: SharedKeyID

  public var description: String {
    "\(what) of \(keyID) is gone (removed, or set to nil); the change made through its reference "
      + "was not applied."
  }

  /// Says so on standard error, as a runtime warning: the change was dropped, not crashed on.
  static func warn(_ what: String, keyID: SharedKeyID) {
    FileHandle.standardError.write(
      Data("Keepsake: \(MissingPart(what: what, keyID: keyID))\n".utf8))
  }
}

extension Shared {
  /// A shared reference to the value of `base` while it is not `nil`, or `nil` when it is.
  ///
  /// Changes write through to `base`. If `base` becomes `nil` later, reads return the last
  /// value seen and changes are dropped, with a warning, rather than crash.
  public init?(_ base: Shared<Value?>) {
    guard let current = base.wrappedValue else { return nil }
    self.init(projection: UnwrappedProjection(parent: base, initial: current, what: "the value"))
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
  /// ```swift
  /// ForEach($drafts.elements, id: \.id) { draft in DraftRow(draft: draft) }
  /// ```
  ///
  /// A reference whose element was removed keeps reading the element's last value; a change
  /// through it is dropped with a warning (``update(_:)`` throws ``MissingPart``).
  public var elements: [Shared<Value.Element>] {
    wrappedValue.map { element in
      Shared<Value.Element>(projection: ElementProjection(parent: self, element: element))
    }
  }

  /// A shared reference to the element with `id`, or `nil` when there is none.
  public subscript(id id: Value.Element.ID) -> Shared<Value.Element>? {
    guard let element = wrappedValue.first(where: { $0.id == id }) else { return nil }
    return Shared<Value.Element>(projection: ElementProjection(parent: self, element: element))
  }
}

extension Shared: Identifiable where Value: Identifiable {
  /// The identity of the value.
  public var id: Value.ID { wrappedValue.id }
}
