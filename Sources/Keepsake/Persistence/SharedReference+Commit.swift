import Foundation

/// The cross-process save protocol of file keys (data-safety rule "Processes that share a file
/// lose nothing"; see the Data safety article).
///
/// Every save, and every transaction, runs on the reference's writer queue:
/// 1. take the file's exclusive lock (or use the one a transaction holds);
/// 2. compare the file with what this reference last read or wrote;
/// 3. under the value's lock, reconcile: with nothing pending, adopt their version; with a
///    pending change, merge three ways, or keep both (theirs goes to a conflict copy first);
///    then run the transaction's body, if any;
/// 4. write durably, and only then release the lock.
extension SharedReference {
  /// What step 3 decided.
  private struct Plan {
    var snapshot: Value
    var generation: UInt64
    var write: Bool
    var changed: Bool
    var adopted: FileIdentity??
    var conflictCopy: Data?
    var resolution: SharedConflict.Resolution?
    var prunedCopies: [URL] = []  // issue 22: older conflict copies removed to bound them
  }

  /// Saves through the cross-process protocol.
  ///
  /// - Parameters:
  ///   - force: Write even when nothing changed (an explicit `save()`).
  ///   - check: Compare with the file even when nothing is pending (a transaction's start).
  ///   - body: A transaction's change, run on the freshest value under both locks.
  /// - Throws: ``SharedSaveError`` (recorded in ``saveError`` too), or what `body` threw.
  func commit(
    _ key: any CoordinatedKey<Value>, force: Bool, check: Bool = false,
    body: ((inout Value) throws -> Void)? = nil
  ) throws {
    if body == nil && !force && !check && !hasPendingChange() { return }
    if let blocked = protectingError() {
      let error = SharedSaveError.protected(blocked)
      setSaveError(error)
      throw error
    }
    let held = heldLock.withLock { $0 }
    let lock: FileLock?
    do {
      lock = held == nil ? try key.lock(in: context) : nil
    } catch {
      throw failed(error)
    }
    defer { lock?.release() }
    let change: StoredChange<Value>
    do {
      change = try key.storedChange(in: context)
    } catch {
      // The file became unreadable (a newer app's format, damage): protect it from now on.
      let loadError = SharedReference.loadError(error, key: key)
      setLoadError(loadError)
      let saveError = SharedSaveError.protected(loadError)
      setSaveError(saveError)
      throw saveError
    }

    var bodyError: (any Error)?
    var plan = reconcile(change, key: key, force: force) { value in
      guard let body else { return false }
      // A transaction's body that throws changes nothing: it runs on a copy's worth of
      // rollback, and the error is rethrown after whatever else was due is written.
      let before = value
      do {
        try body(&value)
        return true
      } catch {
        value = before
        bodyError = error
        return false
      }
    }
    if plan.changed { notifyObserversAfterTheFact() }
    if let adopted = plan.adopted { key.remember(adopted) }
    guard plan.write else {
      if let bodyError { throw bodyError }
      return
    }

    do {
      if let theirs = plan.conflictCopy {
        // Theirs is kept durably before ours replaces it: a crash in between loses neither.
        let kept = try key.keepConflictCopy(theirs, in: context)
        plan.resolution = .keptBoth(copy: kept.url)
        plan.prunedCopies = kept.pruned  // issue 22: the app is told which copies were pruned
      }
      try key.write(plan.snapshot, in: context)
    } catch {
      throw failed(error)
    }
    status.withLock { $0.savedGeneration = max($0.savedGeneration, plan.generation) }
    if key.merge != nil { base.withLock { $0 = plan.snapshot } }
    setSaveError(nil)
    if let resolution = plan.resolution {
      report(
        SharedConflict(
          keyID: key.id, url: key.url, resolution: resolution, prunedCopies: plan.prunedCopies))
    }
    if let bodyError { throw bodyError }
  }

  /// Step 3: reconciles the value in memory with the stored change, under the value's lock.
  private func reconcile(
    _ change: StoredChange<Value>, key: any CoordinatedKey<Value>, force: Bool,
    body: (inout Value) -> Bool
  ) -> Plan {
    storage.withLock { current -> Plan in
      let saved = status.withLock { $0.savedGeneration }
      let pending = generation != saved
      var plan = Plan(
        snapshot: current, generation: generation, write: force || pending, changed: false)
      if !pending, let (value, identity) = change.adopted(fallback: fallback) {
        // Nothing of ours is pending: their version is the value now.
        adopt(value, into: &current)
        plan.changed = true
        plan.write = false
        plan.adopted = .some(identity)
      } else if pending {
        switch change {
        case .unchanged:
          break
        case .deleted:
          plan.resolution = .deletedElsewhere
        case .replaced(let theirs, let data, let identity):
          if let merge = key.merge {
            let original = base.withLock { $0 } ?? fallback
            let result = merge.merge(base: original, ours: current, theirs: theirs)
            current = result.value
            plan.changed = true
            plan.adopted = .some(identity)
            plan.resolution = .merged(overlapping: result.conflicts)
            base.withLock { $0 = theirs }
          } else {
            plan.conflictCopy = data
            plan.resolution = .keptBoth(copy: key.url)
          }
        }
      }
      if body(&current) {
        generation &+= 1
        plan.changed = true
        plan.write = true
      }
      plan.snapshot = current
      plan.generation = generation
      return plan
    }
  }

  /// Takes the stored value in as the value in memory, under the value's lock (`current` is
  /// the locked value): nothing is pending any more, and it is the base of the next merge.
  private func adopt(_ value: Value, into current: inout Value) {
    current = value
    status.withLock { $0.savedGeneration = generation }
    if coordinated?.merge != nil { base.withLock { $0 = value } }
  }

  private func failed(_ error: any Error) -> SharedSaveError {
    let saveError = SharedSaveError.writeFailed(keyID: key.id, underlying: error)
    setSaveError(saveError)
    return saveError
  }

  /// Takes in an outside change of a file: adopted at once when nothing is pending here, else
  /// saved now through the protocol, which merges or keeps both.
  func reloadCoordinated(_ key: any CoordinatedKey<Value>) {
    let change: StoredChange<Value>
    do {
      change = try key.storedChange(in: context)
    } catch {
      setLoadError(SharedReference.loadError(error, key: key))
      return
    }
    if case .unchanged = change { return }
    let wasProtected = protectingError() != nil
    var adopted: FileIdentity??
    storage.withLock { current in
      let pending = generation != status.withLock({ $0.savedGeneration })
      // NB: a change made while the file was unreadable was never saved, and saveError says so;
      // the newly readable file (a newer app migrated it, say) is taken as it is.
      guard !pending || wasProtected,
        let (value, identity) = change.adopted(fallback: fallback)
      else { return }
      adopt(value, into: &current)
      adopted = .some(identity)
    }
    guard let adopted else {
      // A change of ours is pending: save it now, against their version.
      _ = performSave()
      return
    }
    key.remember(adopted)
    notifyObserversAfterTheFact()
    if wasProtected { setLoadError(nil) }
  }
}
