import Foundation

// NB: longer than this project's files usually are: the checker's record of every item, field
// and copy is private to the code that judges it, and a second file could reach it only if it
// were widened to the whole module, where a campaign could change what the checker believes.

/// Holds one schedule's facts to Keepsake's promises, without calling into Keepsake: it reads the
/// bytes of every version with its own decoder and follows every item by its id.
///
/// The promises, from the Data safety article:
/// - **Stored data is kept** (rule "Processes that share a file lose nothing"): an item once in
///   the file stays in it, unless someone deliberately removed it, another program's own write
///   took it away, or a Keepsake write that replaced it kept it in a conflict or quarantine copy,
///   which the app was told about (`lastConflict`, or the copy `replaceUnreadableData` made).
/// - **An acknowledged save is on disk**: when `save`, `flush`, `update`, a transaction's commit
///   or `replaceUnreadableData` comes back successful, every item the process had added and
///   still held when it asked has been in the file.
/// - **Replacement is not deletion**: a program that replaces a file by removing it and renaming
///   another into its place (Syncthing) finds the name as it left it: no save writes into the
///   gap (a change pending waits, then merges into what arrives).
/// - **A change reaches the disk in time**: whenever a live process has nothing under way for a
///   file (no job queued, no timer armed, no transaction open) and reports no error, every item
///   it added is on disk: a change is never left waiting for a save nothing will start (an app
///   the system kills in the background would lose it).
/// - **No pending change disappears unreported**: at rest, with no flush asked for, every item a
///   live process added is in the file or the process reports `saveError` or `loadError`; after
///   its last flush the same holds, an item it could not save is still in its memory, and a
///   process that reports no error holds exactly what the file holds. An exit flush writes what
///   the process held when it exited, or reports why not.
/// - **What each writer meant survives, field by field**: a value a process set a field of an
///   item to stays in that field once in the file, unless an edit that saw it replaced it (its
///   process set the field over it), the item went, another program's write took it away, or a
///   Keepsake write that replaced it kept it in a conflict copy the app was told about. A process
///   running an older version of the app (its items lack a field) keeps what a newer one put
///   there. An acknowledged save's field values are in the file.
/// - **Transactions are all or nothing**: no version of the file, and no copy, ever holds one
///   half of a transaction's pair without the other; a transaction rolled back, abandoned by its
///   process, or an `update` whose body threw, is never seen at all.
/// - **Unreadable bytes are never overwritten** (rule "A file Keepsake cannot read is never
///   overwritten"): Keepsake never replaces bytes it cannot read, unless a quarantine copy of
///   exactly those bytes was made first (`replaceUnreadableData`).
/// - **No temporary file is left** once a fresh launch opened the files.
///
/// **A save never writes over what it did not see**: a save swaps its file in and checks what
/// came out (or compares the file just before its rename), so another program that writes
/// without the lock while a save runs is merged like any other writer. A Keepsake write whose
/// writer's last look at the file was an earlier version ("blind") that drops an item, or
/// replaces unreadable bytes, breaks the promise. Another program's own writes may drop
/// anything (it read an older file, or meant to): whatever its write removes is its doing.
struct PromiseChecker {
  private enum State {
    /// Added by a process (its launch's name), not yet seen in the file.
    case memory(String)
    /// In the file: it must stay.
    case stored
    /// Kept in the copies at these paths (every copy that held it when a write dropped it).
    case kept([String])
    /// Not in the file yet: its save was refused, and the change is kept beside the file at
    /// this path until a process merges it in.
    case keptUnsaved(String)
    /// Taken away by another program's write, or raced: not promised any more.
    case released
    /// Deliberately removed by someone: may be there or not.
    case removed
    case forbidden(SimulationFact.Forbidden)
  }

  private struct Copy {
    var path: String
    var bytes: Data
    var names: Set<String>
    var kind: SimulationFact.CopyKind
  }

  private var states: [String: State] = [:]
  /// The values processes set fields to, by value (each is unique to the edit that set it).
  private var fieldStates: [String: State] = [:]
  /// The item and field each value was set on, and the value it deliberately replaced.
  private var fieldEdits: [String: (item: String, field: String, replacing: String?)] = [:]
  private var decodedFields: [Data: [String: [String: String]]] = [:]
  /// The fields each copy of the items file holds.
  private var copyFields: [(path: String, fields: [String: [String: String]])] = []
  private var fileOf: [String: Int] = [:]
  private var partners: [String: String] = [:]
  private var everStored: Set<String> = []
  private var versions: [[Data?]] = [[nil], [nil]]
  private var copies: [[Copy]] = [[], []]
  private var reported: Set<String> = []
  private(set) var violations: [Violation] = []
  private(set) var exemptions = Exemptions()

  /// Judges `facts`, in order.
  static func check(_ facts: [SimulationFact]) -> PromiseChecker {
    var checker = PromiseChecker()
    for fact in facts { checker.take(fact) }
    return checker
  }

  private mutating func fail(_ kind: Violation.Kind, _ detail: String) {
    violations.append(Violation(kind: kind, detail: detail))
  }

  private func file(_ index: Int) -> SimulatedFile { SimulatedFile(rawValue: index) ?? .items }

  private var decoded: [[Data: [String]?]] = [[:], [:]]

  /// What `data` holds, read once per distinct bytes.
  private mutating func names(_ data: Data?, _ file: Int) -> [String]? {
    guard let data else { return [] }
    if let known = decoded[file][data] { return known }
    let names = SimulatedDecoding.names(in: data, of: self.file(file))
    decoded[file][data] = names
    return names
  }

  /// The fields of the items `data` holds, read once per distinct bytes.
  private mutating func fields(_ data: Data?, _ file: Int) -> [String: [String: String]] {
    guard file == SimulatedFile.items.rawValue, let data else { return [:] }
    if let known = decodedFields[data] { return known }
    let fields = SimulatedDecoding.fields(in: data, of: .items)
    decodedFields[data] = fields
    return fields
  }

  private mutating func take(_ fact: SimulationFact) {
    switch fact {
    case .version(let file, let number, let bytes, let writer, let basedOn):
      let old = versions[file].last ?? nil
      version(file, number, bytes, writer, basedOn)
      fieldVersion(file, number, old: old, new: bytes, writer)
    case .copy(let file, let path, let bytes, let writer, let kind):
      let held = names(bytes, file) ?? []
      check(held, in: "the copy \(path) by \(writer)")
      copies[file].append(Copy(path: path, bytes: bytes, names: Set(held), kind: kind))
      let fields = fields(bytes, file)
      if !fields.isEmpty { copyFields.append((path, fields)) }
      if kind == .unsaved {
        // NB: a kept change is never written again: a later one holds it too, and the earlier
        // one goes, so what an earlier one kept is kept by this one now.
        for item in held where isInMemoryOnly(item) || isKeptUnsaved(states[item]) {
          states[item] = .keptUnsaved(path)
        }
        for value in fields.values.flatMap(\.values)
        where isInMemoryOnly(value) || isKeptUnsaved(fieldStates[value]) {
          fieldStates[value] = .keptUnsaved(path)
        }
      }
    case .fieldSet(let value, let item, let field, let replacing, let by):
      fieldStates[value] = .memory(by)
      fieldEdits[value] = (item, field, replacing)
      // A value replaced before it was ever saved was never promised.
      if let replacing, case .memory? = fieldStates[replacing] {
        fieldStates[replacing] = .released
      }
      // A half edited later is a change of its own (an edit brings back an element another
      // writer discarded): the pair is no longer a unit.
      if let partner = partners.removeValue(forKey: item) { partners[partner] = nil }
    case .added(let item, let file, let by, let origin):
      states[item] = .memory(by)
      fileOf[item] = file
      if case .transaction(let partner) = origin {
        partners[item] = partner
        partners[partner] = item
      }
    case .removed(let item):
      states[item] = .removed
      // The values set on its fields go with it.
      for (value, edit) in fieldEdits where edit.item == item {
        if case .memory? = fieldStates[value] { fieldStates[value] = .released }
      }
      // A half removed later is an edit of its own: the pair is no longer a unit.
      if let partner = partners.removeValue(forKey: item) { partners[partner] = nil }
    case .forbidden(let item, let why):
      if everStored.contains(item) {
        fail(.forbiddenSeen, "\(item), \(why), had been written to the file")
      }
      states[item] = .forbidden(why)
    case .acknowledged(let file, let by, let request, let items):
      for item in items where isInMemoryOnly(item) {
        fail(
          .acknowledgedNotStored,
          "\(by)'s \(request) of \(self.file(file).letter) came back successful, but \(item) "
            + "was never in the file")
      }
    case .conflictReported(_, _, let copy):
      if let copy { reported.insert(copy) }
    case .exitFlushed(let file, let by, let items, let reportedError):
      guard !reportedError else { return }
      for item in items where isInMemoryOnly(item) {
        fail(
          .exitFlushLost,
          "\(by) exited holding \(item) of \(self.file(file).letter), reported no error, and "
            + "\(item) was never written")
      }
    case .settled(let file, let by, let reportedError):
      guard !reportedError else { return }
      for item in pending(of: by, in: file) {
        fail(
          .notSavedAutomatically,
          "at rest, \(item) added by \(by) to \(self.file(file).letter) was never written, and "
            + "\(by) reports no error")
      }
    case .gapFilled(let file):
      fail(
        .gapFilled,
        "\(self.file(file).letter) was written between a replacement's removal of it and its "
          + "rename, which then replaced that write")
    case .idle(let file, let by):
      for item in pending(of: by, in: file) {
        fail(
          .late,
          "\(item) added by \(by) to \(self.file(file).letter) is not on disk, and no job, timer or "
            + "error of \(by) says why")
      }
    case .final(let file, let by, let memory, let saveError, let loadError):
      final(file, by, memory, saveError: saveError, loadError: loadError)
    case .listing(let files):
      listing(files)
    case .unsettled(let why):
      fail(.unsettled, why)
    }
  }

  private func isKeptUnsaved(_ state: State?) -> Bool {
    if case .keptUnsaved? = state { return true }
    return false
  }

  private func isInMemoryOnly(_ item: String) -> Bool {
    if case .memory? = states[item] { return true }
    if case .memory? = fieldStates[item] { return true }
    return false
  }

  /// What `launch` added to `file`, or set a field of it to, that is not on disk: for the
  /// field values, only where the item is still promised.
  private func pending(of launch: String, in file: Int) -> [String] {
    let items = states.compactMap { item, state -> String? in
      guard case .memory(let by) = state, by == launch, fileOf[item] == file else { return nil }
      return item
    }
    let values = fieldStates.compactMap { value, state -> String? in
      guard case .memory(let by) = state, by == launch, file == SimulatedFile.items.rawValue,
        let item = fieldEdits[value]?.item, case .stored? = states[item]
      else { return nil }
      return value
    }
    return (items + values).sorted()
  }

  /// Whether `value` was set over `replaced`, directly or through edits that each saw the one
  /// before.
  private func replaces(_ value: String, _ replaced: String) -> Bool {
    var current = value
    for _ in 0..<10_000 {
      guard let edit = fieldEdits[current], let before = edit.replacing else { return false }
      if before == replaced { return true }
      current = before
    }
    return false
  }

  /// Holds the values of the items' fields in version `number` to the promise: one that was in
  /// the file and is not in this version was replaced by an edit that saw it, or kept in a copy,
  /// or taken away with its item or by another program.
  private mutating func fieldVersion(
    _ file: Int, _ number: Int, old: Data?, new: Data?, _ writer: SimulationFact.Writer
  ) {
    guard file == SimulatedFile.items.rawValue, let newNames = names(new, file) else { return }
    let before = fields(old, file)
    let after = fields(new, file)
    let present = Set(newNames)
    let place = "version \(number) of a, written by \(writer)"
    for (item, members) in before {
      for (field, value) in members {
        guard case .stored? = fieldStates[value] else { continue }
        let now = after[item]?[field]
        guard present.contains(item), now != value else {
          // Gone with its item: the item's own promise judges that.
          if !present.contains(item) { fieldStates[value] = .released }
          continue
        }
        switch writer {
        case .outside:
          fieldStates[value] = .released
        case .keepsake:
          if let now, replaces(now, value) {
            fieldStates[value] = .released
          } else if case let holding = copyFields.filter({ $0.fields[item]?[field] == value }),
            !holding.isEmpty
          {
            fieldStates[value] = .kept(holding.map(\.path))
          } else {
            fail(
              .fieldDropped,
              "\(place) set \(item).\(field) to \(now ?? "nothing") over \(value), which no edit "
                + "replaced, and kept no copy of it")
          }
        }
      }
    }
    for members in after.values {
      for value in members.values {
        switch fieldStates[value] {
        // NB: a value kept in a copy and written back (a later merge took it in) is in the
        // file again, and promised there.
        case .memory?, .keptUnsaved?, .kept?, nil: fieldStates[value] = .stored
        default: break
        }
      }
    }
  }

  /// Every pair is whole and nothing forbidden is there.
  private mutating func check(_ held: [String], in place: String) {
    let set = Set(held)
    for item in held {
      if let partner = partners[item], !set.contains(partner) {
        fail(.halfTransaction, "\(place) holds \(item) without \(partner)")
      }
      if case .forbidden(let why)? = states[item] {
        fail(.forbiddenSeen, "\(place) holds \(item), \(why)")
      }
    }
  }

  private mutating func version(
    _ file: Int, _ number: Int, _ bytes: Data?, _ writer: SimulationFact.Writer, _ basedOn: Int?
  ) {
    let old = versions[file].last ?? nil
    versions[file].append(bytes)
    let oldNames = names(old, file) ?? []
    let newNames = names(bytes, file)
    let place = "version \(number) of \(self.file(file).letter), written by \(writer)"
    if let newNames { check(newNames, in: place) }
    let blind = basedOn != number - 1
    let looked: Set<String> =
      blind ? Set(basedOn.flatMap { names(versions[file][$0], file) } ?? []) : []
    let now = Set(newNames ?? [])
    for item in oldNames where !now.contains(item) {
      guard case .stored? = states[item] else { continue }
      switch writer {
      case .outside:
        states[item] = .released
      case .keepsake:
        if blind && !looked.contains(item) {
          exemptions.racedItems += 1
          fail(
            .storedDropped,
            "\(place) dropped \(item), written after the save last looked at the file "
              + "(version \(basedOn.map(String.init) ?? "none")): it wrote over what it did not see"
          )
        } else if case let holding = copies[file].filter({ $0.names.contains(item) }),
          !holding.isEmpty
        {
          // NB: every copy that holds it: a quarantine copy the app was told about can hold
          // it beside a conflict copy of a process killed before it could tell its app.
          states[item] = .kept(holding.map(\.path))
        } else {
          fail(
            .storedDropped,
            "\(place) dropped \(item), which version \(number - 1) held, and kept no copy of it")
        }
      }
    }
    if case .keepsake = writer, let old, names(old, file) == nil {
      if blind {
        exemptions.racedUnreadable += 1
        fail(
          .unreadableOverwritten,
          "\(place) replaced unreadable bytes written after the save last looked at the file")
      } else if !copies[file].contains(where: { $0.kind == .quarantine && $0.bytes == old }) {
        fail(
          .unreadableOverwritten,
          "\(place) replaced the unreadable bytes of version \(number - 1), with no quarantine "
            + "copy of them")
      }
    }
    for item in newNames ?? [] {
      switch states[item] {
      case .removed?, .forbidden?: continue
      default:
        states[item] = .stored
        fileOf[item] = file
        everStored.insert(item)
      }
    }
  }

  private mutating func final(
    _ file: Int, _ by: String, _ memory: [String], saveError: String?, loadError: String?
  ) {
    let letter = self.file(file).letter
    let current = versions[file].last ?? nil
    let stored = names(current, file)
    if let loadError, stored != nil {
      fail(.protectedOverReadable, "\(by) still reports \(loadError) for \(letter), readable now")
    }
    let reportsError = saveError != nil || loadError != nil
    let held = Set(memory)
    for item in pending(of: by, in: file) {
      if !reportsError {
        fail(
          .pendingLost,
          "\(item) added by \(by) to \(letter) is neither in the file nor reported (no error)")
      } else if fieldStates[item] == nil, !held.contains(item) {
        fail(.pendingLost, "\(item) added by \(by) to \(letter) is gone from its memory too")
      }
    }
    if !reportsError, let stored, Set(stored) != held {
      let missing = Set(stored).subtracting(held).sorted().prefix(4)
      let extra = held.subtracting(stored).sorted().prefix(4)
      fail(
        .diverged,
        "\(by) holds \(memory.count) items of \(letter), the file \(stored.count) (missing: "
          + "\(missing.joined(separator: ",")); extra: \(extra.joined(separator: ",")))")
    }
  }

  private mutating func listing(_ files: [String: Data]) {
    for (item, state) in states.sorted(by: { $0.key < $1.key }) {
      guard let file = fileOf[item] else { continue }
      let letter = self.file(file).letter
      switch state {
      case .stored:
        let final = names(versions[file].last ?? nil, file) ?? []
        if !final.contains(item) {
          fail(.storedDropped, "\(item) of \(letter) is not in the final file")
        }
      case .kept(let paths):
        let kept = paths.compactMap { path in copies[file].last(where: { $0.path == path }) }
        guard !kept.isEmpty else { continue }
        let left = kept.filter { files[$0.path] == $0.bytes }
        if left.isEmpty {
          let places = paths.joined(separator: ", ")
          fail(.storedDropped, "\(item) of \(letter) was kept in \(places), which is gone")
        } else if !left.contains(where: { $0.kind != .conflict || reported.contains($0.path) }) {
          let places = left.map(\.path).joined(separator: ", ")
          fail(.copyNotReported, "\(item) of \(letter) is only in \(places), never reported")
        }
      case .keptUnsaved(let path):
        if files[path] == nil {
          fail(.pendingLost, "\(item) of \(letter) was kept unsaved in \(path), which is gone")
        }
      default:
        break
      }
    }
    for (value, state) in fieldStates.sorted(by: { $0.key < $1.key }) {
      guard case .kept(let paths) = state else { continue }
      let kept = paths.compactMap { path in copies[0].last(where: { $0.path == path }) }
      let left = kept.filter { files[$0.path] == $0.bytes }
      if left.isEmpty {
        fail(.fieldDropped, "\(value) was kept in \(paths.joined(separator: ", ")), which is gone")
      } else if !left.contains(where: { $0.kind != .conflict || reported.contains($0.path) }) {
        let places = left.map(\.path).joined(separator: ", ")
        fail(.copyNotReported, "\(value) is only in \(places), never reported")
      }
    }
    for path in files.keys.sorted() where path.contains(".keepsake-tmp-") {
      fail(.temporaryLeft, "\(path) is still there after a fresh launch")
    }
  }
}
