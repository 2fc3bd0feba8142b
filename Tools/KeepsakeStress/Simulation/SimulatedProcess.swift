import Foundation
import Keepsake

/// One launch of a simulated process: a storage context of its own over the shared disk, the
/// two keys it opens, and what it did (its own items, its open transactions).
///
/// A kill ends it: its memory and lanes are gone, its locks released; a restart is a new launch
/// with a fresh context.
///
/// NB: `@unchecked Sendable`: one schedule runs on one thread (see ``SimulatedClockwork``).
final class SimulatedProcess: @unchecked Sendable {
  /// Where a transaction of this launch is.
  enum Transaction: Equatable {
    /// `begin` was asked for and has not come back.
    case beginning
    /// Its body runs: `halves` of its pair are added so far.
    case open(pair: [String], halves: Int)
    /// `commit` (or `rollback`) was asked for and has not come back.
    case ending(pair: [String], commit: Bool)
  }

  /// Where an exit is.
  enum Exit: Equatable {
    /// Waiting for the jobs running now, as the exit flush does (`lane.sync`).
    case waiting(flushed: Set<Int>, items: [Int: [String]])
    /// Every file's exit flush asked for: done once the lanes are idle.
    case flushing(items: [Int: [String]])
  }

  /// The schedule's number of the process.
  let process: Int
  /// The launch's number, unique within the schedule.
  let number: Int
  /// `p1#2`: process 1, the schedule's launch 2.
  let name: String
  private(set) var isAlive = true
  weak var simulation: Simulation?

  // What the process's file system knows of it.
  /// The locks it holds, released when it dies.
  var held: [FileLock] = []
  /// The version of each file it last examined (its identity or its bytes).
  var examined: [Int?] = [nil, nil]
  /// Dies during its next write.
  var killsInNextWrite = false

  // Its keys.
  private(set) var lanes: [SimulatedLane?] = [nil, nil]
  private var opening: Int?
  var context: StorageContext?
  var keys: [SimulatedKey?] = [nil, nil]

  // What the app did.
  /// Items it added, per file, in order.
  var added: [[String]] = [[], []]
  /// Values it set fields to, per file, in order.
  var fieldValues: [[String]] = [[], []]
  /// Whether it runs the older version of the app (items without the field `b`).
  var runsOlderModel = false
  var transactions: [Transaction?] = [nil, nil]
  /// Requests of the app under way, per file.
  var asked = [0, 0]
  /// Whether it ever looked at a version of each file that had bytes.
  var sawFile = [false, false]
  var exit: Exit?
  /// The last conflict and lock timeout seen on each file, to notice changes.
  var seenConflict: [SharedConflict?] = [nil, nil]
  var seenLockTimeout = [false, false]

  init(process: Int, number: Int) {
    self.process = process
    self.number = number
    self.name = "p\(process)#\(number)"
  }

  /// The lane made while `file`'s key was being opened is that file's.
  func adopt(_ lane: SimulatedLane) {
    if let opening, lanes[opening] == nil { lanes[opening] = lane }
  }

  /// Opens `file`'s key in this launch's context (reading it, as a launch does).
  func open(_ file: SimulatedFile) {
    guard let context else { return }
    opening = file.rawValue
    defer { opening = nil }
    keys[file.rawValue] = StorageContext.withValue(context) {
      switch file {
      case .items where runsOlderModel:
        SimulatedKey(
          Shared(SimulatedKeys.olderItems(), default: []), make: { SimulatedOlderItem(id: $0) },
          name: \.id,
          fields: SimulatedOlderItem.fields, set: { $0.set($1, to: $2) }, values: { [$0.a] })
      case .items:
        SimulatedKey(
          Shared(SimulatedKeys.items(), default: []), make: { SimulatedItem(id: $0) },
          name: \.id,
          fields: SimulatedItem.fields, set: { $0.set($1, to: $2) }, values: { [$0.a, $0.b] })
      case .notes:
        SimulatedKey(Shared(SimulatedKeys.notes(), default: []), make: { $0 }, name: { $0 })
      }
    }
  }

  func lane(_ file: Int) -> SimulatedLane? { lanes[file] }

  /// Whether anything is queued on its lanes.
  var hasWork: Bool { lanes.contains { $0?.hasWork == true } }

  /// Whether a step just wrote a file: the app may have been told of a conflict.
  var wroteFile = false
  /// Whether a step was just refused a lock: the app may have been told the save gave up.
  var wasRefusedLock = false
  /// When the lock of each file began to be refused to it, in a row.
  var refusedSince: [Duration?] = [nil, nil]

  /// Its own items that the value of `file` holds now, and the values it set fields to that
  /// the value still holds.
  func ownItemsInMemory(_ file: Int) -> [String] {
    guard let key = keys[file] else { return [] }
    let memory = Set(key.names())
    let pair = transactionPair(file)
    let items = added[file].filter { memory.contains($0) && !pair.contains($0) }
    guard !fieldValues[file].isEmpty else { return items }
    let values = key.fieldValues()
    return items + fieldValues[file].filter { values.contains($0) }
  }

  func transactionPair(_ file: Int) -> [String] {
    switch transactions[file] {
    case .open(let pair, _)?, .ending(let pair, _)?: pair
    default: []
    }
  }

  /// The process dies: nothing it queued runs, its locks are released, its watches end.
  func die() {
    guard isAlive else { return }
    isAlive = false
    for lock in held { lock.release() }
    held = []
    for lane in lanes { lane?.discard() }
  }

  /// Lets go of the keys and the context of a dead process, so its references go away.
  func releaseKeys() {
    keys = [nil, nil]
    lanes = [nil, nil]
    context = nil
  }
}

/// One key of a simulated process, seen as a list of names, whatever its value type.
final class SimulatedKey: Sendable {
  let names: @Sendable () -> [String]
  let add: @Sendable (String) -> Void
  let remove: @Sendable (Int) -> String?
  let drive:
    @Sendable (DrivenRequest, Bool, @escaping @Sendable (Result<Void, any Error>) -> Void) -> Void
  let update:
    @Sendable (
      _ name: String, _ throwing: Bool, _ ran: @escaping @Sendable () -> Void,
      _ done: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) -> Void
  let exit: @Sendable () -> Void
  let phase: @Sendable () -> String
  let saveError: @Sendable () -> SharedSaveError?
  let loadError: @Sendable () -> SharedLoadError?
  let lastConflict: @Sendable () -> SharedConflict?
  /// Sets a field of the element `index` picks (with the field) to `value`: the element's name,
  /// the field, and what it held; `nil` when there is no element (or no field).
  let editField: @Sendable (_ index: Int, _ value: String) -> (String, String, String?)?
  /// Every field value the elements hold.
  let fieldValues: @Sendable () -> Set<String>

  init<Element: Sendable>(
    _ shared: Shared<[Element]>, make: @escaping @Sendable (String) -> Element,
    name: @escaping @Sendable (Element) -> String, fields: [String] = [],
    set: @escaping @Sendable (inout Element, String, String) -> String? = { _, _, _ in nil },
    values: @escaping @Sendable (Element) -> [String?] = { _ in [] }
  ) {
    editField = { index, value in
      guard !fields.isEmpty else { return nil }
      return shared.withLock { elements in
        guard !elements.isEmpty else { return nil }
        let field = fields[index % fields.count]
        let at = (index / fields.count) % elements.count
        let previous = set(&elements[at], field, value)
        return (name(elements[at]), field, previous)
      }
    }
    fieldValues = { Set(shared.wrappedValue.flatMap { values($0).compactMap { $0 } }) }
    names = { shared.wrappedValue.map(name) }
    add = { item in shared.withLock { $0.append(make(item)) } }
    remove = { index in
      shared.withLock { value in
        guard !value.isEmpty else { return nil }
        return name(value.remove(at: index % value.count))
      }
    }
    drive = { request, inside, done in shared.drive(request, insideTransaction: inside, then: done)
    }
    update = { item, throwing, ran, done in
      shared.driveUpdate(
        { value in
          ran()
          value.append(make(item))
          if throwing { throw SimulatedBodyError() }
        }, then: done)
    }
    exit = { shared.driveExit() }
    phase = { shared.persistencePhase }
    saveError = { shared.saveError }
    loadError = { shared.loadError }
    lastConflict = { shared.lastConflict }
  }
}

/// What a simulated body throws.
struct SimulatedBodyError: Error, CustomStringConvertible {
  var description: String { "the simulated body threw" }
}
