import Foundation

/// How the view models read an error: a cancellation to ignore, or a reason to show.
///
/// Nonisolated so it can be used from any executor; it only reads the error and the current
/// task's cancellation flag.
nonisolated enum FailureReason {
  /// Whether `error` means "the work was called off" rather than "the work failed".
  ///
  /// A cancelled task may surface as `CancellationError` or, from some transports, as another
  /// error thrown once the task was cancelled; both mean the listener moved on, and neither is a
  /// failure to show.
  static func isCancellation(_ error: any Error) -> Bool {
    error is CancellationError || Task.isCancelled
  }

  /// The sentence shown to the listener after a failure: the error's own description.
  static func text(for error: any Error) -> String {
    if let localized = error as? any LocalizedError, let text = localized.errorDescription {
      return text
    }
    return String(describing: error)
  }
}
