import Foundation

/// The verdict of the devices campaign, from the processes' acknowledged edits and the files
/// each device ends with.
///
/// NB: written apart from Keepsake: the files are read with Foundation's JSON (the envelope's
/// `content`, whatever else the file carries), and the model is only the edits each process
/// printed, in order. An item's text and existence have one author, the process that added it,
/// so their final state is what its last acknowledged edit made them (or, when later edits were
/// not acknowledged, what one of them made them: an unacknowledged change stays in memory and
/// may be saved by a later save). A change kept beside the file because the file is from a
/// newer format version counts as acknowledged: the newer processes must merge it.
///
/// An item's note has two authors, its owner and one other process, which may set it at once
/// on two devices. Each note set names the note it replaced, so the checker knows which notes
/// were replaced on purpose. Each author's last acknowledged note must be in the file, or
/// replaced on purpose by a later one, or kept in a conflict copy beside the file: the field
/// changed on both sides that the merge did not write.
struct DevicesChecker {
  /// One process's printed lines.
  struct Process {
    var device: Int
    var lines: [String]
    /// When each line arrived, if known: a report excuses an item's earlier state only if it
    /// came after the item's last edit (see ``reportMargin``).
    var times: [ContinuousClock.Instant] = []
  }

  /// How much earlier than an item's last edit a report naming it may arrive and be about it.
  ///
  /// The lines of two processes are read on two threads, which a loaded machine may run seconds
  /// apart. Reports from a run's first merges, long before, do not excuse a later edit's loss.
  static let reportMargin: Duration = .seconds(10)

  /// What one device's folder holds at the end.
  struct Disk {
    var device: Int
    /// The items by id, or `nil` when the file cannot be read.
    var items: [String: String]?
    var names: [String]
    /// The items' notes by id (a field the older version's process does not know).
    var notes: [String: String] = [:]
    /// The notes in Keepsake's conflict copies of `items.json`, as `<id> <note>`.
    var copiedNotes: Set<String> = []
  }

  /// An item as it is after an edit: its text, or `nil` for deleted.
  typealias State = String?

  struct Verdict {
    var acknowledged = 0
    /// Changes an older format version's process kept beside the file.
    var kept = 0
    /// Kept changes still beside `items.json` at the end: none was merged.
    var keptChangesLeft: [String] = []
    var lostEdits: [String] = []
    var decidedByPolicy: [String] = []
    var unknownItems: [String] = []
    var differingDevices = 0
    var unreadableFiles = 0
    var itemCopiesLeft: [String] = []
    var unreportedSettingsCopies: [String] = []
    var settingsConflictsReported = 0
    var copiesMerged: Set<String> = []
    var savesMergedBack = 0
    /// What the first lost items should have been and were.
    var explanations: [String] = []
  }

  let processes: [Process]
  let disks: [Disk]

  func check() -> Verdict {
    var verdict = Verdict()
    var allowed: [String: (final: Set<State>, earlier: Set<State>)] = [:]
    // Per item, per author: the notes that may stand for the author's last one.
    var allowedNotes: [String: [Set<String>]] = [:]
    // Notes a later note replaced on purpose (its writer saw them).
    var replaced: Set<String> = []
    // Notes a process saw in a conflict copy, which the library may have pruned since.
    var copied: Set<String> = []
    var overlapping: Set<String> = []
    // When each item was last edited, and last named by a report (where the lines' times are
    // known).
    var lastEdit: [String: ContinuousClock.Instant] = [:]
    var lastReport: [String: ContinuousClock.Instant] = [:]
    var reportedSettingsCopies: [Int: Set<String>] = [:]
    for process in processes {
      // Per item of this process: the states its edits made, acknowledged or not.
      var states: [String: [(state: State, acknowledged: Bool)]] = [:]
      var pending: [String: [State]] = [:]
      var notes: [String: [(note: String, acknowledged: Bool)]] = [:]
      var pendingNotes: [String: [String]] = [:]
      for (index, line) in process.lines.enumerated() {
        let time = index < process.times.count ? process.times[index] : nil
        let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard let kind = words.first else { continue }
        switch kind {
        case "copied" where words.count == 3:
          copied.insert(words[1] + " " + words[2])
        case "op" where words.count == 5 && words[1] == "note":
          pendingNotes[words[2], default: []].append(words[3])
          if words[4] != "-" { replaced.insert(words[2] + " " + words[4]) }
        case "ack" where words.count == 5 && words[1] == "note",
          "unacked" where words.count == 5 && words[1] == "note":
          let acknowledged = kind == "ack"
          if acknowledged { verdict.acknowledged += 1 }
          notes[words[2], default: []].append((words[3], acknowledged))
          pendingNotes[words[2]]?.removeFirst()
        case "op":
          if let (id, state) = Self.edit(words.dropFirst()) {
            pending[id, default: []].append(state)
            if let time { lastEdit[id] = max(lastEdit[id] ?? time, time) }
          }
        case "ack", "unacked", "kept":
          let acknowledged = kind != "unacked"
          if kind == "ack" { verdict.acknowledged += 1 }
          if kind == "kept" { verdict.kept += 1 }
          if let (id, state) = Self.edit(words.dropFirst()) {
            states[id, default: []].append((state, acknowledged))
            pending[id]?.removeFirst()
            // NB: an author's note on an item it then deleted went with its deletion, also when
            // another device's change brings the item back (as that device had it).
            if state == nil && acknowledged { notes[id] = nil }
          }
        case "conflict" where words.count >= 5:
          if words[2] == "merged" {
            if words[1] == "items", words[4] != "-" {
              // An item's id, or a field of it (`<id>.note`, from a merge field by field).
              for part in words[4].split(separator: ",").map(String.init) {
                var named = [part]
                for suffix in [".text", ".note"] where part.hasSuffix(suffix) {
                  named.append(String(part.dropLast(suffix.count)))
                }
                for id in named {
                  overlapping.insert(id)
                  if let time { lastReport[id] = max(lastReport[id] ?? time, time) }
                }
              }
            }
            if words[3] == "overwritten-save" {
              verdict.savesMergedBack += 1
            } else if words[3] != "-" {
              verdict.copiesMerged.insert(words[3])
            }
          }
          if words[1] == "settings", words[2] == "kept" {
            reportedSettingsCopies[process.device, default: []].insert(words[3])
          }
        default: break
        }
      }
      for (id, history) in states {
        let lastAcknowledged = history.lastIndex { $0.acknowledged }
        var final: Set<State> = [lastAcknowledged.map { history[$0].state } ?? nil]
        for entry in history[((lastAcknowledged ?? -1) + 1)...] { final.insert(entry.state) }
        for state in pending[id] ?? [] { final.insert(state) }
        let earlier = Set(history.map(\.state)).union([nil]).subtracting(final)
        allowed[id] = (final, earlier)
      }
      // This author's last acknowledged note, or a later one, not acknowledged; before any is
      // acknowledged, nothing is asked of it.
      for (id, history) in notes {
        guard let lastAcknowledged = history.lastIndex(where: { $0.acknowledged }) else {
          continue
        }
        var candidates = Set(history[lastAcknowledged...].map(\.note))
        candidates.formUnion(pendingNotes[id] ?? [])
        allowedNotes[id, default: []].append(candidates)
      }
    }
    var first: [String: String]?
    var lost: Set<String> = []
    var decided: Set<String> = []
    for disk in disks {
      guard let items = disk.items else {
        verdict.unreadableFiles += 1
        continue
      }
      if let first, first != items { verdict.differingDevices += 1 }
      if first == nil { first = items }
      for (id, expectation) in allowed {
        let state: State = items[id]
        if expectation.final.contains(state) { continue }
        // An earlier state of the item: a later edit is not in the file. A merge's policy may
        // decide so for a part it reported as changed on both sides; otherwise it is lost.
        if overlapping.contains(id) && expectation.earlier.contains(state)
          && Self.reportCame(lastReport[id], after: lastEdit[id])
        {
          decided.insert(id)
        } else {
          lost.insert(id)
        }
      }
      for (id, authors) in allowedNotes where items[id] != nil {
        // NB: an item that is there keeps each author's note, whoever wrote the file last (an
        // older version's process keeps the field it does not know): in the file, replaced by
        // a writer that saw it, or in a conflict copy when two set it at once.
        for candidates in authors {
          // NB: an item its owner deleted may come back with another writer's change (the
          // merge keeps a change over a deletion, and reports it): the owner's own note went
          // with its deletion.
          let ownerDeleted = allowed[id]?.final.contains(nil) == true
          if ownerDeleted, candidates.allSatisfy({ Self.writer(of: $0) == Self.owner(of: id) }) {
            continue
          }
          let kept = candidates.contains { note in
            disk.notes[id] == note || replaced.contains(id + " " + note)
              || disk.copiedNotes.contains(id + " " + note) || copied.contains(id + " " + note)
          }
          if !kept { lost.insert(id + " (its note)") }
        }
      }
      for id in items.keys where allowed[id] == nil { verdict.unknownItems.append(id) }
      for name in disk.names where Self.isEngineCopy(name, of: "items.json") {
        verdict.itemCopiesLeft.append("dev\(disk.device)/\(name)")
      }
      for name in disk.names where Self.isKeptChange(name, of: "items.json") {
        verdict.keptChangesLeft.append("dev\(disk.device)/\(name)")
      }
      let reported = reportedSettingsCopies[disk.device] ?? []
      for name in disk.names where Self.isEngineCopy(name, of: "settings.json") {
        if !reported.contains(name.replacingOccurrences(of: " ", with: "_")) {
          verdict.unreportedSettingsCopies.append("dev\(disk.device)/\(name)")
        }
      }
    }
    verdict.lostEdits = lost.sorted()
    verdict.explanations = lost.sorted().prefix(2).map { id in
      if id.hasSuffix(" (its note)") {
        let item = String(id.dropLast(" (its note)".count))
        let finals = disks.map { "dev\($0.device): \($0.notes[item] ?? "none")" }
        return "\(id) expected each of \(allowedNotes[item]?.map { $0.sorted() } ?? []), "
          + "found \(finals)"
      }
      let finals = disks.map { "dev\($0.device): \($0.items?[id] ?? "absent")" }
      return "\(id) expected one of \(allowed[id]?.final.map { $0 ?? "absent" } ?? []), "
        + "found \(finals)"
    }
    verdict.decidedByPolicy = decided.subtracting(lost).sorted()
    verdict.settingsConflictsReported = reportedSettingsCopies.values.reduce(0) { $0 + $1.count }
    return verdict
  }

  /// Whether a report that arrived at `report` may be about an edit made at `edit` (either
  /// unknown: it may).
  static func reportCame(
    _ report: ContinuousClock.Instant?, after edit: ContinuousClock.Instant?
  ) -> Bool {
    guard let report, let edit else { return true }
    return report >= edit - reportMargin
  }

  /// `add <id> <text>`, `edit <id> <text>`, `delete <id>` as the item and the state they make.
  private static func edit(_ words: ArraySlice<String>) -> (String, State)? {
    let words = Array(words)
    switch words.first {
    case "add" where words.count == 3, "edit" where words.count == 3: return (words[1], words[2])
    case "delete" where words.count == 2: return (words[1], nil)
    default: return nil
    }
  }

  /// The process that owns the item `id` (`<device>.<process>.<n>`).
  static func owner(of id: String) -> String {
    id.split(separator: ".").prefix(2).joined(separator: ".")
  }

  /// The process that set `note` (`<id>~<writer>~<edit>`).
  static func writer(of note: String) -> String {
    let parts = note.split(separator: "~")
    return parts.count == 3 ? String(parts[1]) : ""
  }

  /// Whether `name` is a conflict copy any engine made (not Keepsake's own).
  static func isEngineCopy(_ name: String) -> Bool {
    name.contains(".sync-conflict-") || name.contains("conflicted copy")
  }

  /// Whether `name` is an engine's conflict copy of the file `file` itself (`items.json`), not
  /// of another file (such as a Keepsake conflict copy of it, which syncs like any file).
  static func isEngineCopy(_ name: String, of file: String) -> Bool {
    let stem = String(file.dropLast(".json".count))
    return name.hasPrefix(stem + ".sync-conflict-") && name.hasSuffix(".json")
      && name.dropFirst(stem.count + ".sync-conflict-".count).allSatisfy { $0 != "." || true }
      && !name.dropFirst(stem.count).dropLast(".json".count).contains(".conflict-")
  }

  /// Whether `name` is a change a process kept beside the file `file` (`items.json`) when its
  /// save was refused.
  static func isKeptChange(_ name: String, of file: String) -> Bool {
    let stem = String(file.dropLast(".json".count))
    return name.hasPrefix(stem + ".unsaved-") && name.hasSuffix(".json")
  }

  /// The notes in Keepsake's conflict copies of `items.json` in `folder`, as `<id> <note>`.
  static func copiedNotes(in folder: URL) -> Set<String> {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    var copied: Set<String> = []
    for name in names where name.hasPrefix("items.conflict-") && name.hasSuffix(".json") {
      for (id, note) in notes(at: folder.appendingPathComponent(name)) {
        copied.insert(id + " " + note)
      }
    }
    return copied
  }

  /// The notes of the items in the file at `url`, read with Foundation alone.
  static func notes(at url: URL) -> [String: String] {
    guard let data = try? Data(contentsOf: url),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let content = object["content"] as? [[String: Any]]
    else { return [:] }
    var notes: [String: String] = [:]
    for item in content {
      if let id = item["id"] as? String, let note = item["note"] as? String { notes[id] = note }
    }
    return notes
  }

  /// The items in the file at `url`, read with Foundation alone, or `nil` when it cannot be read.
  static func items(at url: URL) -> [String: String]? {
    guard let data = try? Data(contentsOf: url) else { return [:] }
    guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let content = object["content"] as? [[String: Any]]
    else { return nil }
    var items: [String: String] = [:]
    for item in content {
      guard let id = item["id"] as? String, let text = item["text"] as? String else { return nil }
      items[id] = text
    }
    return items
  }
}
