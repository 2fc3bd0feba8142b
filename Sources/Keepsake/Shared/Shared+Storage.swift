import Foundation

// What a `Shared` forwards to the reference of the key that stores its value (a projection's
// root): identity, load and save state, saving, transactions.

extension Shared {
  /// The identity of the key, or a unique identity for a `Shared(value:)`.
  public var keyID: SharedKeyID { root.keyID }

  /// The context the reference was created in; it stays the same in any task or thread.
  public var storageContext: StorageContext { root.context }

  /// Why the stored data could not be read, or `nil`; observable.
  ///
  /// While it is set, the key is protected: nothing is saved over the stored data.
  public var loadError: SharedLoadError? { root.loadError }

  /// Why the last save failed, or `nil` once a save succeeds; observable.
  public var saveError: SharedSaveError? { root.saveError }

  /// Reads the stored value again, replacing the value in memory when something is stored.
  ///
  /// A change still pending here is never dropped: it meets what is stored the way a save meets
  /// another process's change (merged, or both kept), and `load` returns once that is saved. A
  /// file found removed is taken in (the value goes back to its default) only once a two-second
  /// grace is over, as a removal the key sees by itself is: a program replacing the file
  /// (Syncthing, `rm` then `cp`) puts it back meanwhile, and the value stays until then.
  ///
  /// - Throws: ``SharedLoadError`` when the data exists but cannot be read (the key is then
  ///   protected and the value in memory is kept); ``SharedSaveError`` when a pending change met
  ///   the stored data and could not be saved.
  public func load() async throws { try await root.load() }

  /// Saves the current value and returns once it is durably stored (for files: written to a
  /// temporary file, flushed, renamed over the file and the folder flushed).
  ///
  /// - Throws: ``SharedSaveError/protected(_:)`` when the stored data could not be read (it is
  ///   left untouched), or ``SharedSaveError/writeFailed(keyID:underlying:)``; the previously
  ///   stored data is intact either way.
  public func save() async throws { try await root.save() }

  /// Writes a pending change now, if there is one, and waits for it.
  ///
  /// Every `flush` in Keepsake keeps one contract: it writes what is pending, waits, and throws
  /// what the write ran into (``StorageContext/flush()`` throws the first of its keys' errors,
  /// after flushing them all). The error also stays in ``saveError`` until a save succeeds.
  /// With nothing pending it returns at once and throws nothing, even for protected data.
  ///
  /// - Throws: ``SharedSaveError``: ``SharedSaveError/protected(_:)`` when the stored data
  ///   could not be read (it is left untouched), else ``SharedSaveError/writeFailed(keyID:underlying:)``.
  public func flush() async throws { try await root.flush() }

  /// Whether the first load is still under way, for keys that load in the background
  /// (`.fileStorage(url, loadsInBackground: true)`, reader keys); observable.
  ///
  /// The value is the default until the load arrives. A change made meanwhile is kept: it meets
  /// the loaded value the way a change meets another process's save (merged, or both kept).
  public var isLoading: Bool { root.isLoading }

  /// Why changes other processes make to the stored data are not seen right now, or `nil`
  /// while they are.
  ///
  /// Set when the system refuses another watch (on Linux, past `fs.inotify.max_user_watches`),
  /// and cleared once a retry succeeds. Not observable: read it when showing a key's status. A
  /// key without a watch still never overwrites another process's data, since every save
  /// compares the file first; it only sees their changes at its next save or ``load()``.
  public var watchError: (any Error)? { root.watchError }

  /// The last time another process changed the stored data while this one had a change to
  /// save, and what was done so that neither side's data was lost; observable.
  ///
  /// It stays until the next conflict. A file key merges values that can merge (see
  /// ``SharedMerge``) and otherwise keeps the other version as a conflict copy beside the file.
  public var lastConflict: SharedConflict? { root.lastConflict }

  /// Every conflict reported from the moment this is read, in order, none missed.
  ///
  /// ``lastConflict`` holds one report: an observer that reacts to its changes may see only the
  /// last of several that came close together (two copies merged in one pass, a busy main
  /// thread). Iterate this stream where each report matters (to log it, to show each one):
  ///
  /// ```swift
  /// for await conflict in $notes.conflicts {
  ///   log.notice("\(conflict)")
  /// }
  /// ```
  ///
  /// The stream buffers reports until they are read; when the iterating task is cancelled, it
  /// gives the reports made until then, and ends. A projection's stream is its root key's.
  /// Nonisolated: iterate it anywhere.
  public var conflicts: AsyncStream<SharedConflict> { root.conflicts() }

  /// Changes the value in a transaction that other processes cannot interleave with: under the
  /// file's cross-process lock, `body` runs on the freshest stored value, and the result is
  /// written durably before the lock is released and this method returns.
  ///
  /// Use it for read-modify-write that must not lose another process's change, the way a
  /// database transaction is used:
  ///
  /// ```swift
  /// try await $drafts.update { $0.append(draft) }
  /// ```
  ///
  /// `body` runs with the value's lock held: keep it short, and do not use this `Shared` inside
  /// it. When it throws, the value is left as it was and the error is rethrown. For keys that
  /// are not files, `update` is ``withLock(_:)`` followed by ``save()``. A projection's `update`
  /// is a transaction of its root's key.
  ///
  /// - Throws: What `body` threw; ``SharedSaveError/protected(_:)`` when the stored data cannot
  ///   be read (then `body` does not run); ``SharedSaveError/writeFailed(keyID:underlying:)`` when
  ///   the lock could not be taken or the write failed (the file is then as it was before);
  ///   ``MissingPartError`` for a projection whose part is gone (nothing is changed).
  public func update<R: Sendable>(_ body: @Sendable (inout Value) throws -> R) async throws -> R {
    let target = current
    guard let path = target.path else { return try await target.reference.update(body) }
    return try await target.root.withTransaction(isolation: nil) {
      var result: R?
      // NB: the body changes a copy, so a body that throws leaves the value as it was.
      let missing = try path.modify(target.object, path.state, path.offset) { address in
        let part = address.assumingMemoryBound(to: Value.self)
        var copy = part.pointee
        result = try body(&copy)
        part.pointee = copy
      }
      if let missing { throw missing.part }
      guard let result else {
        preconditionFailure("a projection's accessor did not run the change")
      }
      return result
    }
  }

  /// Runs `body` as one transaction on the stored value: the file's cross-process lock is held
  /// throughout, the value is first refreshed from the file, and every change `body` makes
  /// (through ``withLock(_:)``, a store's reducer, anything) is written durably before the lock
  /// is released.
  ///
  /// This is for work that cannot fit in ``update(_:)``'s synchronous closure, such as sending
  /// actions to a store:
  ///
  /// ```swift
  /// try await $drafts.withTransaction {
  ///   await store.send(.draftDiscarded(id)).finish()
  /// }
  /// ```
  ///
  /// Other processes' saves of the file wait until the transaction ends, so keep it short: no
  /// network requests or user interaction inside, and no `await` of anything slower than the
  /// change itself. `body` runs in the caller's isolation.
  ///
  /// > Important: On iOS, an app suspended while it holds a file lock in an App Group container
  /// > is killed by the system, and its widget or extension cannot take the lock meanwhile. The
  /// > lock is held inside a span of background time asked of the system (see the Data safety
  /// > article), which lasts a few seconds, not minutes: a transaction that awaits the network or
  /// > the user can outlast it.
  ///
  /// A transaction is all or nothing: no intermediate value is ever written (coalesced saves and
  /// flushes wait for its end; ``save()`` and ``flush()`` inside it are part of it and return at
  /// once), a body that throws restores the value the transaction began with and writes nothing,
  /// and a process killed meanwhile leaves the file as it was. Every change of the value while it
  /// runs is part of it, whichever task makes it.
  ///
  /// - Throws: What `body` threw (then nothing it changed is kept); ``SharedSaveError`` when the
  ///   value could not be refreshed or written (then the change stays in memory, pending, and
  ///   ``saveError`` says so).
  public func withTransaction<R>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
  ) async throws -> R {
    try await root.withTransaction(isolation: isolation, body)
  }

  /// Starts over from stored data that could not be read: sets the damaged data aside (for a
  /// file, a quarantine copy beside it, named so a person can find and restore it) and saves the
  /// current value in its place.
  ///
  /// - Returns: Where the damaged data was put, if anywhere.
  /// - Throws: When the data could not be set aside or the new value could not be saved; the
  ///   damaged data is then still in place.
  @discardableResult
  public func replaceUnreadableData() async throws -> URL? {
    try await root.replaceUnreadableData()
  }
}
