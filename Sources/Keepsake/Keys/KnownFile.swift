import Foundation
import Synchronization

/// The identity of the file a key last read or wrote, shared by copies of the key; and what
/// the key's last look at the file found, which its next write replaces and nothing else.
final class KnownFile: Sendable {
  /// The last document read from the file, with the value read from it, until its members the
  /// model does not know are found; then those members, as a base and theirs to merge into
  /// every write (see `FileStorageKey.keepingUnknownMembers(_:)`).
  enum ReadDocument: @unchecked Sendable {
    case none
    // NB: `@unchecked`: the value is the key's `Value`, which is Sendable; kept as `Any` so the
    // class needs no generic parameter (its type's metadata on every key's creation).
    case read(Data, value: Any)
    case unknownMembers(base: JSONValue, theirs: JSONValue)
  }

  /// Keeps the document just read, and the value read from it.
  func noteRead(_ data: Data, value: Any) {
    state.withLock { $0.document = .read(data, value: value) }
  }

  /// The members of the last document read that the model does not know, found once per read
  /// by `find` (`nil`: none).
  func unknownMembers(
    find: (Data, Any) -> (base: JSONValue, theirs: JSONValue)?
  ) -> (base: JSONValue, theirs: JSONValue)? {
    // NB: searched under the one lock: a reference's steps run one at a time on its writer
    // lane, so its own lookups never wait for the search.
    state.withLock { state in
      switch state.document {
      case .none: return nil
      case .unknownMembers(let base, let theirs): return (base, theirs)
      case .read(let data, let value):
        let found = find(data, value)
        state.document =
          found.map { .unknownMembers(base: $0.base, theirs: $0.theirs) } ?? .none
        return found
      }
    }
  }

  private struct State {
    var identity: FileIdentity?
    var seen: FileIdentity?
    /// Whether the key has known a file at its name (read one or written one), so that its
    /// folder, if it disappears, was removed rather than never made.
    var hadFile = false
    /// Whether the last file seen at the name, never taken in, was removed: until a file is
    /// seen or written there again, the empty name is a removal, however often it is looked
    /// at.
    var removedUnseen = false
    /// The last look at a file whose times are whole seconds (see ``noteLook(at:identity:)``).
    var look: Look?
    /// The last document read (see ``ReadDocument``).
    var document = ReadDocument.none
    /// What the reference knows for syncing (see ``SyncState``).
    var sync = SyncStateFields()
  }

  private let state = Mutex(State())

  /// Runs `body` on the sync state's fields (see ``SyncState``), under the one lock.
  func withSyncFields<R: Sendable>(_ body: (inout SyncStateFields) -> R) -> R {
    state.withLock { body(&$0.sync) }
  }
  func get() -> FileIdentity? { state.withLock { $0.identity } }
  func set(_ value: FileIdentity?) {
    state.withLock {
      $0.identity = value
      $0.seen = value
      if value != nil {
        $0.hadFile = true
        $0.removedUnseen = false
      }
    }
  }
  /// Records what a look at the file found (`nil`: no file).
  func saw(_ value: FileIdentity?) {
    state.withLock {
      if value == nil, $0.identity == nil, $0.seen != nil { $0.removedUnseen = true }
      $0.seen = value
      if value != nil {
        $0.hadFile = true
        $0.removedUnseen = false
      }
    }
  }
  /// Whether the name is empty because a file the key saw there, and never took in, was
  /// removed (see `State.removedUnseen`).
  func lookedAtRemovedFile() -> Bool {
    state.withLock { $0.removedUnseen || ($0.identity == nil && $0.seen != nil) }
  }
  func seen() -> FileIdentity? { state.withLock { $0.seen } }
  func hasHadFile() -> Bool { state.withLock { $0.hadFile } }

  // MARK: Whole-second times

  /// The last look at a file whose times are whole seconds: a digest of the bytes it read or
  /// wrote, and when it was (wall time, nanoseconds since 1970).
  private struct Look {
    var digest: UInt64
    var at: Int64
  }

  /// How long after a file's recorded change another edit may still record the same change
  /// time: FAT keeps modification times in 2-second steps, the coarsest in use.
  static let timeGranularity: Int64 = 2_000_000_000

  /// Notes a read or write of `data`; kept only where the file's times are whole seconds
  /// (elsewhere the identity tells every edit, and nothing is computed).
  func noteLook(at data: Data, identity: FileIdentity?) {
    guard let identity, identity.hasWholeSecondTimes else {
      state.withLock { $0.look = nil }
      return
    }
    let look = Look(digest: Self.digest(of: data), at: Self.now())
    state.withLock { $0.look = look }
  }

  /// The digest the file's bytes must have to be unchanged, when `identity` cannot tell.
  ///
  /// That is when its times are whole seconds and the last look came within their granularity
  /// of its recorded change: an edit after that look may have kept every part of the identity.
  /// `nil`: the identity tells.
  func digestToCompare(_ identity: FileIdentity) -> UInt64? {
    guard identity.hasWholeSecondTimes else { return nil }
    return state.withLock { state in
      guard let look = state.look, look.at < identity.changed &+ Self.timeGranularity else {
        return nil
      }
      return look.digest
    }
  }

  /// The bytes were compared and found unchanged: the look is as of now.
  func confirmLook() {
    let now = Self.now()
    state.withLock { $0.look?.at = now }
  }

  private static func now() -> Int64 {
    Int64((Date().timeIntervalSince1970 * 1e9).rounded())
  }

  /// The 64-bit FNV-1a digest of `data`.
  static func digest(of data: Data) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in data {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    return hash
  }
}
