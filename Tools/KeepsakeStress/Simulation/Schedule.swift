import Foundation
@_spi(Testing) import Keepsake

/// One schedule of the simulation: how it starts, and the events it makes happen, in order.
///
/// Its text form (``description``, ``init(parsing:)``) is what a failure prints and what
/// `keepsake-stress --campaign simulation --replay '...'` replays. Every event is interpreted
/// against the state it meets (a step of a lane with no work does nothing), so any subsequence of
/// a schedule is a schedule too: that is what lets a failure shrink to its fewest events.
public struct Schedule: Sendable, Equatable, CustomStringConvertible {
  /// How a schedule starts.
  public struct Setup: Sendable, Equatable {
    /// How many processes run (each starts at once, with both keys open).
    public var processes = 3
    /// How many of the simulation's files the processes open (1: the merging file only).
    public var files = 2
    /// What each file holds before the first process starts.
    public var initial: [Initial] = [.missing, .missing]
    /// The process that runs an older version of the app, whose items lack the field `b`
    /// (`nil`: every process runs the same version).
    public var olderModel: Int?

    /// What a file holds at the start.
    public enum Initial: Sendable, Equatable {
      case missing
      /// Items written by an earlier program.
      case items(Int)
      /// Bytes the app cannot read.
      case unreadable
      /// A readable file, and a temporary file a writer killed in an earlier launch left.
      case leftover
    }

    /// The default setup.
    public init() {}
  }

  /// How the schedule starts.
  public var setup: Setup
  /// What happens, in order.
  public var events: [SimulationEvent]

  /// A schedule of `events` from `setup`.
  public init(setup: Setup, events: [SimulationEvent]) {
    self.setup = setup
    self.events = events
  }

  public var description: String {
    var words = ["p\(setup.processes)", "f\(setup.files)"]
    for (index, initial) in setup.initial.prefix(setup.files).enumerated() {
      let letter = SimulatedFile(rawValue: index)?.letter ?? "?"
      switch initial {
      case .missing: continue
      case .items(let count): words.append("\(letter)=\(count)")
      case .unreadable: words.append("\(letter)=unreadable")
      case .leftover: words.append("\(letter)=leftover")
      }
    }
    if let olderModel = setup.olderModel { words.append("old=\(olderModel)") }
    return (words + ["|"] + events.map(\.description)).joined(separator: " ")
  }

  /// Reads a schedule printed by ``description``.
  ///
  /// - Throws: ``ScheduleSyntaxError`` naming the first word it cannot read.
  public init(parsing text: String) throws {
    let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
    guard let bar = words.firstIndex(of: "|") else {
      throw ScheduleSyntaxError(word: text, reason: "no `|` between the setup and the events")
    }
    var setup = Setup()
    for word in words[..<bar] {
      if word.hasPrefix("p"), let count = Int(word.dropFirst()), (1...9).contains(count) {
        setup.processes = count
      } else if word.hasPrefix("f"), let count = Int(word.dropFirst()), (1...2).contains(count) {
        setup.files = count
      } else if word.hasPrefix("old="), let slot = Int(word.dropFirst(4)), (0...8).contains(slot) {
        setup.olderModel = slot
      } else if word.count > 2, let file = word.first.flatMap(SimulatedFile.init(letter:)),
        word.dropFirst().first == "="
      {
        let value = word.dropFirst(2)
        switch value {
        case "unreadable": setup.initial[file.rawValue] = .unreadable
        case "leftover": setup.initial[file.rawValue] = .leftover
        default:
          guard let count = Int(value) else {
            throw ScheduleSyntaxError(word: word, reason: "not a setup word")
          }
          setup.initial[file.rawValue] = .items(count)
        }
      } else {
        throw ScheduleSyntaxError(word: word, reason: "not a setup word")
      }
    }
    self.setup = setup
    self.events = try words[(bar + 1)...].map { word in
      guard let event = SimulationEvent(parsing: word) else {
        throw ScheduleSyntaxError(word: word, reason: "not an event")
      }
      return event
    }
  }
}

/// A schedule's text that could not be read.
public struct ScheduleSyntaxError: Error, CustomStringConvertible {
  /// The word that could not be read.
  public var word: String
  /// Why.
  public var reason: String

  public var description: String {
    "cannot read the schedule at \"\(word)\": \(reason); replay a schedule exactly as a failure "
      + "printed it"
  }
}

/// One thing a schedule makes happen.
///
/// Processes are numbered from 0; files are `a` (the merging items) and `b` (the non-merging
/// notes).
public enum SimulationEvent: Sendable, Hashable, CustomStringConvertible {
  /// Runs the next piece of work queued on the process's lane for the file (one step of a job).
  case step(process: Int, file: Int)
  /// Tells the process the files it watches changed (its watcher's events arrive).
  case deliver(process: Int)
  /// Moves the virtual clock; timers that come due are queued on their lanes.
  case advance(milliseconds: Int)
  /// The process adds an item through `withLock` (inside its open transaction: the next half of
  /// the transaction's pair).
  case add(process: Int, file: Int)
  /// The process removes the item at `index` (modulo the count) through `withLock`.
  case remove(process: Int, file: Int, index: Int)
  /// The app of the process sets a field of an element its value holds (`index` picks the
  /// element and the field) to a name of its own.
  case editField(process: Int, file: Int, index: Int)
  /// The process asks for a request of the file's persistence (answered by callback).
  case request(process: Int, file: Int, SimulatedRequest)
  /// The process dies: its memory and lanes are gone, its locks released, its disk refuses it.
  case kill(process: Int)
  /// The process dies during its next write, between the temporary file and the rename.
  case killInNextWrite(process: Int)
  /// A dead process starts again, with a fresh storage context.
  case restart(process: Int)
  /// The process exits (normally or on a termination signal): it flushes, then is gone.
  case exit(process: Int)
  /// Another program starts changing the file (its first step happens now).
  case outside(file: Int, OutsideEdit)
  /// That program's next step.
  case outsideStep(file: Int)
  /// The next `count` disk operations of this kind fail with `fault`.
  case fault(FileOperation, SimulatedFault, count: Int)
  /// Another program takes the file's lock and keeps it.
  case holdLock(file: Int)
  /// It lets the lock go.
  case releaseLock(file: Int)

  public var description: String {
    func letter(_ file: Int) -> String { String(SimulatedFile(rawValue: file)?.letter ?? "?") }
    switch self {
    case .step(let process, let file): return "s\(process)\(letter(file))"
    case .deliver(let process): return "w\(process)"
    case .advance(let milliseconds): return "t\(milliseconds)"
    case .add(let process, let file): return "m\(process)\(letter(file))"
    case .remove(let process, let file, let index): return "d\(process)\(letter(file))\(index)"
    case .editField(let process, let file, let index):
      return "e\(process)\(letter(file))\(index)"
    case .request(let process, let file, let request):
      return "\(request.rawValue)\(process)\(letter(file))"
    case .kill(let process): return "K\(process)"
    case .killInNextWrite(let process): return "k\(process)"
    case .restart(let process): return "N\(process)"
    case .exit(let process): return "E\(process)"
    case .outside(let file, let edit): return "o\(letter(file)):\(edit)"
    case .outsideStep(let file): return "c\(letter(file))"
    case .fault(let operation, let fault, let count):
      return "f:\(operation.rawValue):\(fault.rawValue):\(count)"
    case .holdLock(let file): return "lock+\(letter(file))"
    case .releaseLock(let file): return "lock-\(letter(file))"
    }
  }

  /// Reads one word of a printed schedule.
  init?(parsing word: String) {
    if word.hasPrefix("f:") {
      let parts = word.split(separator: ":").map(String.init)
      guard parts.count == 4, let operation = FileOperation(rawValue: parts[1]),
        let fault = SimulatedFault(rawValue: parts[2]), let count = Int(parts[3])
      else { return nil }
      self = .fault(operation, fault, count: count)
      return
    }
    if word.hasPrefix("lock"), word.count == 6, let file = Self.file(word.last) {
      switch word.dropFirst(4).first {
      case "+": self = .holdLock(file: file)
      case "-": self = .releaseLock(file: file)
      default: return nil
      }
      return
    }
    if word.hasPrefix("o"), let colon = word.firstIndex(of: ":") {
      guard let file = Self.file(word.dropFirst().first),
        let edit = OutsideEdit(parsing: String(word[word.index(after: colon)...]))
      else { return nil }
      self = .outside(file: file, edit)
      return
    }
    guard let head = word.first else { return nil }
    let rest = word.dropFirst()
    let digits = rest.prefix { $0.isNumber }
    let tail = rest.dropFirst(digits.count)
    switch head {
    case "t":
      guard let milliseconds = Int(rest) else { return nil }
      self = .advance(milliseconds: milliseconds)
      return
    case "c":
      guard rest.count == 1, let file = Self.file(rest.first) else { return nil }
      self = .outsideStep(file: file)
      return
    default:
      break
    }
    guard let process = Int(digits) else { return nil }
    if tail.isEmpty {
      switch head {
      case "w": self = .deliver(process: process)
      case "K": self = .kill(process: process)
      case "k": self = .killInNextWrite(process: process)
      case "N": self = .restart(process: process)
      case "E": self = .exit(process: process)
      default: return nil
      }
      return
    }
    guard let file = Self.file(tail.first) else { return nil }
    let after = tail.dropFirst()
    switch head {
    case "s" where after.isEmpty: self = .step(process: process, file: file)
    case "m" where after.isEmpty: self = .add(process: process, file: file)
    case "d":
      guard let index = Int(after) else { return nil }
      self = .remove(process: process, file: file, index: index)
    case "e":
      guard let index = Int(after) else { return nil }
      self = .editField(process: process, file: file, index: index)
    default:
      guard after.isEmpty, let request = SimulatedRequest(rawValue: String(head)) else {
        return nil
      }
      self = .request(process: process, file: file, request)
    }
  }

  /// Whether the event names only processes and files that `setup` has.
  func fits(_ setup: Schedule.Setup) -> Bool {
    let process: Int?
    let file: Int?
    switch self {
    case .step(let p, let f), .add(let p, let f), .remove(let p, let f, _),
      .editField(let p, let f, _), .request(let p, let f, _):
      (process, file) = (p, f)
    case .deliver(let p), .kill(let p), .killInNextWrite(let p), .restart(let p), .exit(let p):
      (process, file) = (p, nil)
    case .outside(let f, _), .outsideStep(let f), .holdLock(let f), .releaseLock(let f):
      (process, file) = (nil, f)
    case .advance, .fault:
      (process, file) = (nil, nil)
    }
    return (process ?? 0) < setup.processes && (file ?? 0) < setup.files
  }

  private static func file(_ letter: Character?) -> Int? {
    letter.flatMap(SimulatedFile.init(letter:))?.rawValue
  }
}

/// A request a simulated process makes of a file's persistence.
public enum SimulatedRequest: String, Sendable, CaseIterable {
  /// `save()`: write now, even if nothing changed.
  case save = "S"
  /// `flush()`: write a pending change now.
  case flush = "F"
  /// `load()`: read the file again.
  case load = "L"
  /// `update { append }`: a transaction with a synchronous body.
  case update = "U"
  /// `update { append; throw }`: a body that throws, which must leave no trace.
  case failingUpdate = "X"
  /// The start of `withTransaction`; the body then adds a pair of items over several events.
  case begin = "B"
  /// The body returned: the end of the transaction.
  case commit = "C"
  /// The body threw: the transaction is rolled back.
  case rollback = "R"
  /// `replaceUnreadableData()`.
  case replace = "Q"
}

/// A disk fault of the simulation, from the in-memory disk's fault plans.
public enum SimulatedFault: String, Sendable, CaseIterable {
  case diskFull = "full"
  case ioError = "io"
  /// A write that stores only part of its bytes, then fails.
  case shortWrite = "short"

  var fault: FileSystemFault {
    switch self {
    case .diskFull: .fail(.diskFull)
    case .ioError: .fail(.ioError)
    case .shortWrite: .shortWrite(written: 7)
    }
  }
}

/// What another program does to a file, without Keepsake and without its lock.
public struct OutsideEdit: Sendable, Hashable, CustomStringConvertible {
  /// How it writes.
  public var style: OutsideStyle
  /// For the styles that edit the content: the item it removes (index modulo the count).
  public var removing: Int?

  /// An edit of `style`.
  public init(_ style: OutsideStyle, removing: Int? = nil) {
    self.style = style
    self.removing = removing
  }

  public var description: String {
    style.rawValue + (removing.map { ":-\($0)" } ?? "")
  }

  init?(parsing text: String) {
    let parts = text.split(separator: ":")
    guard let first = parts.first, let style = OutsideStyle(rawValue: String(first)) else {
      return nil
    }
    self.style = style
    if parts.count == 2, parts[1].hasPrefix("-"), let index = Int(parts[1].dropFirst()) {
      self.removing = index
    } else if parts.count != 1 {
      return nil
    }
  }
}

/// The ways another program writes a file.
public enum OutsideStyle: String, Sendable, CaseIterable {
  /// An edit written to a temporary file, then renamed over the file (two steps).
  case atomic
  /// An edit written in place: truncate, then the bytes in three pieces, watchers told after
  /// each (four steps), as shells and many editors do.
  case inPlace = "in-place"
  /// An item appended in place: the closing bracket dropped, then the item and the bracket
  /// written (two steps).
  case append
  /// The file removed.
  case delete
  /// The file removed, then created again with new content (two steps).
  case recreate
  /// The edit written to a temporary file, the file removed, then the temporary file renamed
  /// into its place (three steps), as Syncthing replaces every file it receives.
  case replace
  /// Bytes that do not decode, written over the file.
  case garbage
  /// A newer app's version of the file, which this app must refuse.
  case future
  /// The last readable content written back (with an item of its own): unreadable bytes
  /// become readable again, as when a newer app migrates the file back or a person restores
  /// it.
  case restore
  /// A space appended: the file changes, its value does not.
  case touch
  /// An edit of the same size written in place, its modification time then put back, as
  /// `cp -p`, `rsync -t` and restores do: only the change time, which no program can set, moves
  /// (one step; an item is removed to make room for its own, the rest padded with spaces).
  case keepTime = "keep-time"
  /// An edit by a program that ignores the lock, renamed over the file while a save of it runs:
  /// its temporary file, then the rename, which lands inside the next save of the file, after
  /// that save looked at the file and before its own rename (or at the next step, when no save
  /// comes first).
  case midSave = "mid-save"
  /// An edit by a program that ignores the lock, renamed over the file just after a save of it
  /// swapped its own file in: its temporary file, then the rename, which lands inside the next
  /// save of the file, after that save's swap and before the save comes back (or at the next
  /// step, when no save comes first). The save must not take that file for the one it wrote.
  case afterSave = "after-save"
  /// The lock file removed while a process holds it (`rm *.lock`, `git clean`, a sync engine
  /// that syncs it): the next process takes a lock of its own, so two may write at once (one
  /// step; the file itself is not changed).
  case lockRemoved = "lock-removed"
}
