extension PromiseChecker {
  /// A broken promise.
  struct Violation: Sendable, Equatable, CustomStringConvertible {
    /// Which promise, for shrinking a failure to the fewest events that break the same one.
    enum Kind: String, Sendable {
      case halfTransaction = "half a transaction seen"
      case forbiddenSeen = "a change that must never be seen was seen"
      case storedDropped = "stored data dropped"
      case fieldDropped = "a field's value dropped"
      case unreadableOverwritten = "unreadable bytes overwritten"
      case acknowledgedNotStored = "an acknowledged save is not on disk"
      case exitFlushLost = "the exit flush lost a change"
      case notSavedAutomatically = "a change left unsaved and unreported at rest"
      case late = "a change with no save under way (the rule of time)"
      case gapFilled = "a save wrote into a replacement's gap"
      case pendingLost = "a pending change disappeared unreported"
      case diverged = "a process holds something else than the file"
      case protectedOverReadable = "a readable file is still refused"
      case copyNotReported = "a conflict copy the app was not told about"
      case temporaryLeft = "a temporary file left"
      case unsettled = "the processes never came to rest"
    }

    var kind: Kind
    var detail: String

    var description: String { "\(kind.rawValue): \(detail)" }
  }

  /// Writes over what a save did not see, counted (each is a failure too).
  struct Exemptions: Sendable {
    /// Items another program's unlocked write put in the file after a save examined it, which
    /// the save then replaced unseen.
    var racedItems = 0
    /// Unreadable bytes another program wrote after a save examined the file, replaced unseen.
    var racedUnreadable = 0
  }
}
