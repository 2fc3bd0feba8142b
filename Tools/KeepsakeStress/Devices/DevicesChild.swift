import Foundation
import Keepsake
import Observation

/// A process of one device in the devices campaign: it edits the synced folder's files for a
/// while, then stays open (so its keys merge the copies that keep arriving) until the stop file
/// appears.
///
/// It prints `ready`, then for every edit `op <what>` before and `ack <what>` once it is durably
/// saved (`try await save()` returned, data-safety rule "An acknowledged save is on disk"), or
/// `unacked <what>` when the save failed, or `kept <what>` when it was refused because the file
/// is from a newer format version (the change is then kept beside the file, for a newer process
/// to merge); `<what>` is `add <id> <text>`, `edit <id> <text>`, `note <id> <note>`,
/// `delete <id>` or `settings <owner> <counter>`. It prints each conflict its keys report as
/// `conflict items|settings <resolution> <copy> <overlapping ids>`, and the notes of each
/// conflict copy of the items it finds beside the file as `copied <id> <note>` (read before the
/// library may prune it: at most 10 copies are kept), `edited` when its edits are over and
/// `done` at the end.
///
/// With `--mode plain` it is the deliberately careless writer of the campaign's negative run:
/// it reads and writes the files with Foundation alone, and never looks at conflict copies.
public enum DevicesChild {
  /// How the process writes.
  public enum Mode: String, Sendable, CaseIterable {
    /// Through Keepsake's keys.
    case library
    /// Through Keepsake's keys, as an older version of the app: its items lack `note`, which it
    /// never sets and must keep.
    case older
    /// Through Keepsake's keys, as a version of the app one format version older: it cannot
    /// read a file the newer processes wrote, so its changes are kept beside the file, and the
    /// newer processes must merge them.
    case olderFormat = "older-format"
    /// With Foundation alone, ignoring the engine's conflict copies: it must lose edits.
    case plain
  }

  /// What the process does.
  public struct Options: Sendable {
    public var folder: URL
    public var device = 1
    public var process = 1
    public var seconds = 10.0
    public var seed: UInt64 = 1
    public var mode = Mode.library
    /// Every this many edits, one is left to the coalesced save; 0: none.
    public var pendingEvery = 0
    /// The processes (`<device>.<process>`) whose items this one sets notes of: a field of
    /// another writer's items, so two writers change one item's two fields.
    public var notesOf: [String] = []
    public var stopFile: URL

    /// A process editing the files in `folder` until `stopFile` appears.
    public init(folder: URL, stopFile: URL) {
      self.folder = folder
      self.stopFile = stopFile
    }
  }

  /// How long a process stays open at most, if no stop file ever comes.
  static let lifetime = 300.0

  /// Runs the process; returns 0, or 3 when a file cannot be read.
  public static func run(_ options: Options) async -> Int32 {
    switch options.mode {
    case .library:
      return await StorageContext.withValue(.disk(name: "device \(options.device)")) {
        await runLibrary(options, format: DeviceItemsFormat.self)
      }
    case .older:
      return await StorageContext.withValue(.disk(name: "device \(options.device)")) {
        await runLibrary(options, format: DeviceOlderItemsFormat.self)
      }
    case .olderFormat:
      return await StorageContext.withValue(.disk(name: "device \(options.device)")) {
        await runLibrary(options, format: DeviceFirstItemsFormat.self)
      }
    case .plain:
      return await runPlain(options)
    }
  }

  // MARK: - Through the library

  private static func runLibrary<Element: DeviceElement, Format: VersionedFormat>(
    _ options: Options, format: Format.Type
  ) async -> Int32 where Format.Value == [Element] {
    let itemsURL = options.folder.appendingPathComponent("items.json")
    let settingsURL = options.folder.appendingPathComponent("settings.json")
    @Shared(.fileStorage(itemsURL, format: Format.self, saveInterval: .milliseconds(100)))
    var items: [Element] = []
    @Shared(.fileStorage(settingsURL, format: DeviceSettingsFormat.self))
    var settings = DeviceSettings(owner: "", counter: 0)
    // NB: the older format's process may find the newer processes' file: its changes are then
    // kept beside it.
    if let error = options.mode == .olderFormat
      ? $settings.loadError
      : $items.loadError
        ?? $settings.loadError
    {
      StandardOutput.write("unreadable \(error)")
      return 3
    }
    let conflicts = ConflictLog(items: $items.conflicts, settings: $settings.conflicts)
    StandardOutput.write("ready")
    var copies = CopiedNotes(folder: options.folder)
    var plan = EditPlan(options)
    let deadline = ContinuousClock.now + .seconds(options.seconds)
    var count = 0
    while ContinuousClock.now < deadline {
      let edit = plan.next(items: items.map { ($0.id, $0.text, $0.noteText) })
      StandardOutput.write("op \(edit.line)")
      count += 1
      do {
        switch edit {
        case .settings(let value):
          $settings.withLock { $0 = value }
          try await $settings.save()
        default:
          $items.withLock { edit.apply(to: &$0) }
          if options.pendingEvery > 0 && count % options.pendingEvery == 0 {
            // Every third edit is left to the coalesced save, as an app's are: it is pending
            // when the engine may be replacing the file with another device's version (remove,
            // then rename), and is acknowledged only by the flush after it.
            try? await Task.sleep(for: .milliseconds(250))
            try await $items.flush()
          } else {
            try await $items.save()
          }
        }
        StandardOutput.write("ack \(edit.line)")
      } catch SharedSaveError.protected {
        // Refused: the file is from a newer format version, and the change is kept beside it.
        StandardOutput.write("kept \(edit.line)")
      } catch {
        StandardOutput.write("unacked \(edit.line)")
      }
      copies.scan()
      try? await Task.sleep(for: plan.pause())
    }
    StandardOutput.write("edited")
    await waitForStop(options) { copies.scan() }
    try? await $items.flush()
    try? await $settings.flush()
    await conflicts.stop()
    StandardOutput.write("done")
    return 0
  }

  /// Prints every conflict the keys report, as `conflicts` gives them: none is missed, however
  /// close together they come or however late this process's tasks run.
  private struct ConflictLog {
    let printers: [Task<Void, Never>]

    init(items: AsyncStream<SharedConflict>, settings: AsyncStream<SharedConflict>) {
      printers = [("items", items), ("settings", settings)].map { name, reports in
        Task.detached {
          for await conflict in reports {
            StandardOutput.write("conflict \(name) \(Self.describe(conflict))")
          }
        }
      }
    }

    /// Prints what was reported until now, and stops.
    func stop() async {
      for printer in printers {
        printer.cancel()
        await printer.value
      }
    }

    static func describe(_ conflict: SharedConflict) -> String {
      var copy = "-"
      if case .conflictCopy(let url, _)? = conflict.otherDevice?.origin {
        copy = url.lastPathComponent.replacingOccurrences(of: " ", with: "_")
      } else if conflict.otherDevice != nil {
        copy = "overwritten-save"
      }
      switch conflict.resolution {
      case .merged(let overlapping):
        let parts = overlapping.isEmpty ? "-" : overlapping.joined(separator: ",")
        return "merged \(copy) \(parts) \(conflict.otherDevice.map { "\($0.base)" } ?? "process")"
          .replacingOccurrences(of: " (", with: "(")
      case .keptBoth(let url):
        return "kept \(url.lastPathComponent.replacingOccurrences(of: " ", with: "_")) -"
      case .notMerged:
        return "notmerged \(copy) -"
      case .deletedElsewhere:
        return "deleted \(copy) -"
      }
    }
  }

  // MARK: - The careless writer

  private static func runPlain(_ options: Options) async -> Int32 {
    let itemsURL = options.folder.appendingPathComponent("items.json")
    let settingsURL = options.folder.appendingPathComponent("settings.json")
    StandardOutput.write("ready")
    var plan = EditPlan(options)
    let deadline = ContinuousClock.now + .seconds(options.seconds)
    while ContinuousClock.now < deadline {
      var items = PlainFile.items(at: itemsURL)
      let edit = plan.next(items: items.map { ($0.id, $0.text, $0.noteText) })
      StandardOutput.write("op \(edit.line)")
      do {
        switch edit {
        case .settings(let value):
          try PlainFile.write(["owner": value.owner, "counter": value.counter], to: settingsURL)
        default:
          edit.apply(to: &items)
          try PlainFile.write(items.map { ["id": $0.id, "text": $0.text] }, to: itemsURL)
        }
        StandardOutput.write("ack \(edit.line)")
      } catch {
        StandardOutput.write("unacked \(edit.line)")
      }
      try? await Task.sleep(for: plan.pause())
    }
    StandardOutput.write("edited")
    await waitForStop(options) {}
    StandardOutput.write("done")
    return 0
  }

  /// Prints the notes of each conflict copy of the items that appears beside the file, once.
  private struct CopiedNotes {
    let folder: URL
    var seen: Set<String> = []

    mutating func scan() {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      for name in names where name.hasPrefix("items.conflict-") && !seen.contains(name) {
        seen.insert(name)
        let notes = DevicesChecker.notes(at: folder.appendingPathComponent(name))
        for (id, note) in notes.sorted(by: { $0.key < $1.key }) {
          StandardOutput.write("copied \(id) \(note)")
        }
      }
    }
  }

  /// Waits for the stop file, doing `tick` every 100 ms.
  private static func waitForStop(_ options: Options, tick: () -> Void) async {
    let deadline = ContinuousClock.now + .seconds(lifetime)
    while !FileManager.default.fileExists(atPath: options.stopFile.path),
      ContinuousClock.now < deadline
    {
      tick()
      try? await Task.sleep(for: .milliseconds(100))
    }
  }
}

/// The files as a writer that knows nothing of Keepsake reads and writes them: the envelope by
/// hand, Foundation's JSON, `Data.write(options: .atomic)`.
enum PlainFile {
  static func items(at url: URL) -> [DeviceItem] {
    guard let data = try? Data(contentsOf: url),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let content = object["content"] as? [[String: Any]]
    else { return [] }
    return content.compactMap { item in
      guard let id = item["id"] as? String, let text = item["text"] as? String else { return nil }
      return DeviceItem(id: id, text: text)
    }
  }

  static func write(_ content: Any, to url: URL) throws {
    let envelope: [String: Any] = ["content": content, "version": 1]
    let data = try JSONSerialization.data(withJSONObject: envelope, options: [.sortedKeys])
    try data.write(to: url, options: .atomic)
  }
}

/// The next edit of one process: adds, edits and deletes of its own items, and now and then (3%)
/// the settings; the choice and the pauses come from the seed.
struct EditPlan {
  enum Edit {
    case add(DeviceItem)
    case edit(DeviceItem)
    /// The item's `note` (a field the older version does not know) set to `note`, in place of
    /// `previous`, the note the process saw.
    case note(id: String, note: String, previous: String?)
    case delete(String)
    case settings(DeviceSettings)

    var line: String {
      switch self {
      case .add(let item): return "add \(item.id) \(item.text)"
      case .edit(let item): return "edit \(item.id) \(item.text)"
      case .note(let id, let note, let previous): return "note \(id) \(note) \(previous ?? "-")"
      case .delete(let id): return "delete \(id)"
      case .settings(let value): return "settings \(value.owner) \(value.counter)"
      }
    }

    func apply<Element: DeviceElement>(to items: inout [Element]) {
      switch self {
      case .add(let item): items.append(Element(id: item.id, text: item.text))
      case .edit(let item):
        // NB: the text only: the rest of the item (its note) is not this edit's.
        if let index = items.firstIndex(where: { $0.id == item.id }) {
          items[index].text = item.text
        }
      case .note(let id, let note, _):
        if let index = items.firstIndex(where: { $0.id == id }) { items[index].setNote(note) }
      case .delete(let id): items.removeAll { $0.id == id }
      case .settings: break
      }
    }
  }

  private var random: SeededGenerator
  private let owner: String
  /// The owners whose items this process notes, when its version knows notes.
  private let notesOf: [String]
  /// Whether it sets the notes of its own items too (each item's note then has two authors).
  private let notesOwn: Bool
  private var added = 0
  private var edits = 0
  private var settingsCount = 0

  init(_ options: DevicesChild.Options) {
    random = SeededGenerator(seed: options.seed, item: options.device * 100 + options.process)
    owner = "\(options.device).\(options.process)"
    notesOf = options.mode == .library ? options.notesOf : []
    notesOwn = options.mode == .library
  }

  /// The next edit, given the items this process sees now: it edits and deletes only its own
  /// items it can see, and sets the notes of those and of the items it notes that it can see,
  /// as a person can only change what the app shows.
  mutating func next(items: [(id: String, text: String, note: String?)]) -> Edit {
    let mine = items.filter { $0.id.hasPrefix(owner + ".") }
    let noted = items.filter { item in notesOf.contains { item.id.hasPrefix($0 + ".") } }
    edits += 1
    let roll = Int.random(in: 0..<100, using: &random)
    if roll < 3 {
      settingsCount += 1
      return .settings(DeviceSettings(owner: owner, counter: settingsCount))
    }
    if mine.isEmpty || roll < 45 {
      added += 1
      let id = "\(owner).\(added)"
      return .add(DeviceItem(id: id, text: "\(id)#\(edits)"))
    }
    // NB: notes go to each owner's first items mostly, so that the two authors of a note often
    // set it at once, on two devices apart.
    if (65..<78).contains(roll), !noted.isEmpty {
      let item = noted[Int.random(in: 0..<min(noted.count, 3), using: &random)]
      return .note(id: item.id, note: "\(item.id)~\(owner)~\(edits)", previous: item.note)
    }
    if (78..<86).contains(roll), notesOwn {
      let item = mine[Int.random(in: 0..<min(mine.count, 2), using: &random)]
      return .note(id: item.id, note: "\(item.id)~\(owner)~\(edits)", previous: item.note)
    }
    let item = mine[Int.random(in: 0..<mine.count, using: &random)]
    if roll < 86 { return .edit(DeviceItem(id: item.id, text: "\(item.id)#\(edits)")) }
    return .delete(item.id)
  }

  /// A pause between edits: 300 to 1,500 ms, a busy person's pace, so that the saves of the
  /// devices interleave.
  mutating func pause() -> Duration {
    .milliseconds(Int.random(in: 300...1_500, using: &random))
  }
}
