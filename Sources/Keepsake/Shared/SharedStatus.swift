/// A reference's load and save state, kept under one lock beside its value (see
/// `SharedReference+Status.swift` for its observable accessors).
struct SharedStatus {
  var loadError: SharedLoadError?
  var saveError: SharedSaveError?
  /// The generation (see `generation`) the last successful save wrote.
  var savedGeneration: UInt64 = 0
  /// The last time another process's change met a change of ours.
  var lastConflict: SharedConflict?
  /// Whether the first load is still to come (keys that load in the background).
  var isLoading = false
}
