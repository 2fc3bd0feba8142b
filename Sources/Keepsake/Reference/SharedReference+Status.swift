import Foundation

// What a reference tells its observers of its persistence: the errors, the last conflict, and
// whether the first load is under way.
extension SharedReference {

  func publish(_ change: Machine.StatusChange) {
    if change.contains(.loadError) {
      observation.changed(ReferenceObservation.loadErrorPath)
    }
    if change.contains(.saveError) {
      observation.changed(ReferenceObservation.saveErrorPath)
    }
    if change.contains(.lastConflict) {
      observation.changed(ReferenceObservation.lastConflictPath)
    }
    if change.contains(.isLoading) {
      observation.changed(ReferenceObservation.isLoadingPath)
    }
  }

  var loadError: SharedLoadError? {
    observation.access(ReferenceObservation.loadErrorPath)
    return persistence.withLock { $0.loadError }
  }

  var saveError: SharedSaveError? {
    observation.access(ReferenceObservation.saveErrorPath)
    return persistence.withLock { $0.saveError }
  }

  var lastConflict: SharedConflict? {
    observation.access(ReferenceObservation.lastConflictPath)
    return persistence.withLock { $0.lastConflict }.map(sharedConflict)
  }

  /// Every conflict reported from now on (see ``Shared/conflicts``).
  func conflicts() -> AsyncStream<SharedConflict> {
    persistence.conflicts()
  }

  /// The machine's report, as the app reads it.
  func sharedConflict(_ conflict: Machine.LastConflict) -> SharedConflict {
    SharedConflict(
      keyID: key.id, url: coordinated?.url, resolution: conflict.resolution,
      prunedCopies: conflict.pruned, otherDevice: conflict.otherDevice, copy: conflict.copy,
      keptByAnotherProcess: conflict.keptByAnotherProcess)
  }

  var isLoading: Bool {
    observation.access(ReferenceObservation.isLoadingPath)
    return persistence.withLock { $0.isLoading }
  }
}
