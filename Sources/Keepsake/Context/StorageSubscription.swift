/// A live subscription to outside changes of stored data; it ends when cancelled or released.
public final class StorageSubscription: Sendable {
  private let onCancel: @Sendable () -> Void
  private let currentFailure: @Sendable () -> (any Error)?

  /// Creates a subscription that runs `onCancel` when cancelled or deinitialized.
  ///
  /// `onCancel` must tolerate being called more than once.
  public init(onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = onCancel
    self.currentFailure = { nil }
  }

  /// Creates a subscription that can say why it is not seeing changes right now.
  init(
    onCancel: @escaping @Sendable () -> Void,
    failure: @escaping @Sendable () -> (any Error)?
  ) {
    self.onCancel = onCancel
    self.currentFailure = failure
  }

  /// Why outside changes are not seen right now (the system's watch limit was reached, say),
  /// or `nil` while they are.
  var failure: (any Error)? { currentFailure() }

  /// Stops notifications.
  public func cancel() { onCancel() }

  deinit { onCancel() }
}
