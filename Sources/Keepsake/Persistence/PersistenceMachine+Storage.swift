import Foundation

extension PersistenceMachine {
  /// What the storage behind a reference does, which decides the steps of its jobs.
  ///
  /// The machine knows storage by these traits only, never by the kind of its key: a new kind
  /// of storage says which it has (see `PersistenceMachine.storage(of:shared:)`).
  struct Storage: Sendable, Equatable {
    /// Whether other writers share the stored data.
    ///
    /// Shared: a save takes its lock, reads it, reconciles and writes (rule "Processes that
    /// share a file lose nothing"); transactions hold the lock; a change it refuses is kept
    /// beside it; a removal is waited out before it is taken in. Otherwise a save hands the
    /// latest value to the storage, and a read asks it.
    var isShared: Bool
    /// Whether a change is saved on the mutating thread at once, not on the lane after the
    /// coalescing interval.
    var savesOnMutation: Bool
    /// Whether a save is acknowledged only once a later step on the lane made it durable (a
    /// store that writes in the background, as preferences do).
    var makesDurableLater: Bool

    /// A file shared with other processes.
    static let sharedFile = Storage(
      isShared: true, savesOnMutation: false, makesDurableLater: false)
    /// A store that takes each change at once and makes it durable later: preferences.
    static let backgroundStore = Storage(
      isShared: false, savesOnMutation: true, makesDurableLater: true)
    /// A key of the app's own, which saves on the lane, or at once when `inline`.
    static func ownKey(inline: Bool) -> Storage {
      Storage(isShared: false, savesOnMutation: inline, makesDurableLater: false)
    }
  }
  /// A machine for a reference that persists nothing: a projection's, an in-memory value's.
  static var nothingToPersist: PersistenceMachine {
    PersistenceMachine(
      storage: .ownKey(inline: false), interval: nil, lockTimeout: .zero, loadError: nil,
      isLoading: false)
  }

  /// What the storage of `key` does, from the protocols it conforms to: the one place a key
  /// decides the machine's steps.
  static func storage<Value: Sendable>(
    of key: any SharedKey<Value>, shared: CoordinatedParts<Value>?
  ) -> Storage {
    if shared != nil { return .sharedFile }
    if key is any DurableKey { return .backgroundStore }
    if case .immediate = key.saveTiming { return .ownKey(inline: true) }
    return .ownKey(inline: false)
  }
}

extension SaveTiming {
  /// Whether a key of this timing saves anywhere (all but in-memory values and the like).
  var persists: Bool {
    if case .never = self { return false }
    return true
  }

  /// The coalescing interval, for timings that have one.
  var interval: Duration? {
    if case .coalesced(let interval) = self { return interval }
    return nil
  }
}
