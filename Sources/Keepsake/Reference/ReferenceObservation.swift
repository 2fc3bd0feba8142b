import Observation

/// What Observation sees of a reference: its registrar, and the names of what observers follow
/// (the value and each part of the status).
///
/// NB: not generic, so the key paths observers are told about are made once for every value
/// type: a key path into a generic class is instantiated at run time, and a cache of them by
/// value type was a sizable part of every key's creation. Observation keys what changed by the
/// registrar and the key path, and uses the subject it is given only for its type; the key paths
/// name members of ``ObservedParts``, which hold nothing.
///
/// NB: a struct, stored in the reference: a class of its own was one more allocation on every
/// key's creation (and its release when the key is dropped).
@usableFromInline
struct ReferenceObservation: Sendable {
  @usableFromInline let registrar = ObservationRegistrar()

  @usableFromInline init() {}

  // NB: key paths are immutable; the standard library has not marked them Sendable yet.
  nonisolated(unsafe) static let valuePath: KeyPath<ObservedParts, Void> =
    \.value
  nonisolated(unsafe) static let loadErrorPath: KeyPath<ObservedParts, Void> = \.loadError
  nonisolated(unsafe) static let saveErrorPath: KeyPath<ObservedParts, Void> = \.saveError
  nonisolated(unsafe) static let lastConflictPath: KeyPath<ObservedParts, Void> =
    \.lastConflict
  nonisolated(unsafe) static let isLoadingPath: KeyPath<ObservedParts, Void> = \.isLoading

  /// Tells the registrar the value was read, for the tracking (if any) around the read.
  ///
  /// `path` is ``valuePath``, as the reference keeps it (`SharedReference.valueKeyPath`).
  @inlinable func accessValue(_ path: Unmanaged<KeyPath<ObservedParts, Void>>) {
    path._withUnsafeGuaranteedRef { registrar.access(ObservedParts(), keyPath: $0) }
  }

  /// Before a change of the value (`path` as in ``accessValue(_:)``).
  @inlinable func willSetValue(_ path: Unmanaged<KeyPath<ObservedParts, Void>>) {
    path._withUnsafeGuaranteedRef { registrar.willSet(ObservedParts(), keyPath: $0) }
  }

  /// After a change of the value (`path` as in ``accessValue(_:)``).
  @inlinable func didSetValue(_ path: Unmanaged<KeyPath<ObservedParts, Void>>) {
    path._withUnsafeGuaranteedRef { registrar.didSet(ObservedParts(), keyPath: $0) }
  }

  /// Tells the registrar a part of the status was read.
  func access(_ path: KeyPath<ObservedParts, Void>) {
    registrar.access(ObservedParts(), keyPath: path)
  }

  /// Tells observers a part of the status changed.
  func changed(_ path: KeyPath<ObservedParts, Void>) {
    registrar.withMutation(of: ObservedParts(), keyPath: path) {}
  }
}

/// The parts of a reference that observers follow, named by the key paths of
/// ``ReferenceObservation``.
///
/// NB: an empty struct, so handing the registrar a subject costs nothing (a shared instance was a
/// global's lazy-initialization check on every read and every change).
@usableFromInline
struct ObservedParts: Observable, Sendable {
  @usableFromInline init() {}

  /// The value.
  @usableFromInline var value: Void { () }
  var loadError: Void { () }
  var saveError: Void { () }
  var lastConflict: Void { () }
  var isLoading: Void { () }
}
