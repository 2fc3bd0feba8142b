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
    /// Whether pending changes wait for the removal's grace: for the version put back, or for
    /// the grace's end.
    var waitsForReplacement = false
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

  /// Whether `error` says a suite file is there but cannot be read.
  static func isUnreadableData(_ error: any Error) -> Bool {
    if error is PreferencesError { return true }
    guard let error = error as? FileSystemError else { return false }
    switch error.reason {
    case .notARegularFile, .tooLarge, .linkLoop, .permissionDenied, .ioError, .notDownloaded:
      return true
    default:
      return false
    }
  }

  /// The suite as stored and the identity of the version read, or nil when there is no file;
  /// read again while a program writes it in place (see `FileSystem+InPlaceWrites.swift`).
  func readFile() throws -> (suite: Suite, identity: FileIdentity?)? {
    guard
      let read = try fileSystem.contents(
        atPath: url.path, maximumSize: maximumSize, decodedBy: decode)
    else { return nil }
    return (try read.value.get(), read.identity)
  }

  /// The suite `data` holds.
  private func decode(_ data: Data) throws -> Suite {
    // NB: a suite file is decoded by Keepsake's own types only (`PreferenceValue` and the
    // codec), whose messages name types and keys but never a stored value, so their detail can
    // be part of the description.
    let members: [String: JSONValue]
    do {
      guard case .object(let object) = try JSONValue(reading: data) else {
        throw PreferencesError.unreadable(path: url.path, reason: "it is not a JSON object")
      }
      members = object
    } catch let error as PreferencesError {
      throw error
    } catch {
      throw PreferencesError.unreadable(
        path: url.path, reason: ErrorMessage.reason(error, includingDetail: true))
    }
    var suite = Suite()
    for (key, member) in members {
      do {
        // NB: inside an object of its key, so an error's path names the key, as when the
        // suite was decoded whole.
        let one = JSONValue.object([key: member]).jsonData()
        suite.values[key] = try JSONCoding.decode([String: PreferenceValue].self, from: one)[key]
      } catch {
        let reason = ErrorMessage.reason(error, includingDetail: true)
        suite.unreadable[key] = (
          member, PreferencesError.unreadableValue(path: url.path, key: key, reason: reason)
        )
      }
    }
    return suite
  }

  /// The suite's bytes: pretty printed with sorted keys, for people who open it, and with the
  /// values this version cannot read as they were.
  func encode(_ suite: Suite) throws -> Data {
    // NB: Foundation's encoder, not Keepsake's: the preferences file is written pretty printed,
    // which Keepsake's compact encoder does not do; it is small, so the faster codec would save
    // little. It is read through `JSONCoding`.
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    let data = try encoder.encode(suite.values)
    guard !suite.unreadable.isEmpty else { return data }
    guard case .object(var members) = try JSONValue(reading: data) else { return data }
    for (key, unreadable) in suite.unreadable { members[key] = unreadable.stored }
    return JSONValue.object(members).jsonData(prettyPrinted: true)
  }
}
