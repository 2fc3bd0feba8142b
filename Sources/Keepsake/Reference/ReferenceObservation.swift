import Observation

/// What Observation sees of a reference: its registrar, and the names of what observers follow
/// (the value and each part of the status).
///
/// NB: a class of its own, not generic, so the key paths observers are told about are made once
/// for every value type: a key path into a generic class is instantiated at run time, and a
/// cache of them by value type cost about 1,700 instructions of every key's creation (issue
/// 25). Observation keys what changed by the registrar and the key path; the key paths name
/// members of this class that hold nothing.
@usableFromInline
final class ReferenceObservation: Observable, Sendable {
  @usableFromInline let registrar = ObservationRegistrar()

  @usableFromInline init() {}

  /// The value.
  @usableFromInline var value: Void { () }
  var loadError: Void { () }
  var saveError: Void { () }
  var lastConflict: Void { () }
  var isLoading: Void { () }

  // NB: key paths are immutable; the standard library has not marked them Sendable yet.
  @usableFromInline nonisolated(unsafe) static let valuePath: KeyPath<ReferenceObservation, Void> =
    \.value
  nonisolated(unsafe) static let loadErrorPath: KeyPath<ReferenceObservation, Void> = \.loadError
  nonisolated(unsafe) static let saveErrorPath: KeyPath<ReferenceObservation, Void> = \.saveError
  nonisolated(unsafe) static let lastConflictPath: KeyPath<ReferenceObservation, Void> =
    \.lastConflict
  nonisolated(unsafe) static let isLoadingPath: KeyPath<ReferenceObservation, Void> = \.isLoading

  /// Tells the registrar the value was read, for the tracking (if any) around the read.
  @inlinable func accessValue() { registrar.access(self, keyPath: Self.valuePath) }

  /// Before a change of the value.
  @inlinable func willSetValue() { registrar.willSet(self, keyPath: Self.valuePath) }

  /// After a change of the value.
  @inlinable func didSetValue() { registrar.didSet(self, keyPath: Self.valuePath) }

  /// Tells the registrar a part of the status was read.
  func access(_ path: KeyPath<ReferenceObservation, Void>) {
    registrar.access(self, keyPath: path)
  }

  /// Tells observers a part of the status changed.
  func changed(_ path: KeyPath<ReferenceObservation, Void>) {
    registrar.withMutation(of: self, keyPath: path) {}
  }
}
