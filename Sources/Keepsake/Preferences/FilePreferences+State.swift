import Foundation

extension FilePreferences {
  /// What the store knows of its suite and its keys, behind its lock.
  struct State {
    var values: [String: PreferenceValue] = [:]
    var dirty: Set<String> = []
    var writeScheduled = false
    var lastError: (any Error)?
    /// Why the last read of the suite failed, cleared by the next read that succeeds.
    var readError: (any Error)?
    /// The values the last read could not read, each as stored and with why.
    var unreadableValues: [String: UnreadableValue] = [:]
    /// Whether the suite's file was there when last read or written, so that finding it gone
    /// is a removal, taken in only after ``FilePreferences/removalGrace``.
    var knowsFile = false
    /// Whether a removal was found and its grace runs.
    var removalNoticed = false
    /// The keys of writes that failed, until a write saves them: their references showed the
    /// failure, and are told when it is over.
    var failedKeys: Set<String> = []
    /// Whether the last write failed: the file's next change tries the pending keys again.
    var retriesOnChange = false
    var observers = KeyedObservers()

    /// What finding the suite's file gone means.
    enum Removal {
      /// The file was not known, or the grace is over: the suite is empty.
      case takenIn
      /// The file was known: its grace starts now.
      case graceStarts
      /// Its grace already runs.
      case graceRuns
    }

    /// Notes that the suite's file was found gone.
    mutating func removalFound(graceIsOver: Bool) -> Removal {
      guard knowsFile, !graceIsOver else {
        knowsFile = false
        removalNoticed = false
        return .takenIn
      }
      defer { removalNoticed = true }
      return removalNoticed ? .graceRuns : .graceStarts
    }
  }

  /// A suite as read: the values this version reads, and those it cannot, kept as they are.
  struct Suite {
    var values: [String: PreferenceValue] = [:]
    var unreadable: [String: UnreadableValue] = [:]
  }

  /// A value this version cannot read: as stored, and why.
  typealias UnreadableValue = (stored: JSONValue, error: PreferencesError)
}
