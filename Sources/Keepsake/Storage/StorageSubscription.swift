/// A live subscription to outside changes of stored data; it ends when cancelled or released.
public final class StorageSubscription: Sendable {
  private let onCancel: @Sendable () -> Void

  /// Creates a subscription that runs `onCancel` when cancelled or deinitialized.
  ///
  /// `onCancel` must tolerate being called more than once.
  public init(onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = onCancel
  }

  /// Stops notifications.
  public func cancel() { onCancel() }

  deinit { onCancel() }
}
