import Foundation
@_spi(Testing) import Keepsake

/// Other programs that write the simulation's files directly on the disk: no lock, no merge,
/// one edit at a time per file, each in the steps its style takes.
///
/// An edit starts from what the file holds when it begins (or, when that cannot be read, from
/// the last content the writer could read, as a person restoring a file would), adds an item of
/// its own (`o1`, `o2`, ...) and may remove one. Watchers are told after every step that changes
/// the file.
///
/// NB: `@unchecked Sendable`: one schedule runs on one thread (see ``SimulatedClockwork``).
final class OutsideWriter: @unchecked Sendable {
  private enum Step {
    /// The edit's bytes in a temporary file beside the target (nobody is told).
    case writeTemporary(Data)
    /// The temporary file renamed over the target: a new inode.
    case rename(Data)
    /// The target truncated (or created) in place.
    case truncate
    /// The first bytes of the edit written in place, into the inode it opened.
    case writeInPlace(Data)
    case delete
    /// A new file with these bytes, written in place.
    case create(Data)
    /// These bytes written in place, and the modification time put back.
    case writeKeepingTime(Data)
    /// The temporary file renamed over the target, inside the next save of it if one comes
    /// first (see ``OutsideWriter/landDuringSave(_:)``).
    case renameDuringSave(Data)
    /// The temporary file renamed over the target, inside the next save of it just after that
    /// save's swap, if one comes first (see ``OutsideWriter/landAfterSave(_:)``).
    case renameAfterSave(Data)
    /// The file's lock file removed: whoever holds the lock no longer keeps others out.
    case removeLockFile
  }

  private struct Operation {
    var style: OutsideStyle
    var steps: [Step]
    /// The version the edit started from.
    var basedOn: Int
    /// The inode an in-place writer opened.
    var inode: Int?
    /// Whether its removal step removed a file (a replacement of a file that was there).
    var removed = false
  }

  private let disk: SimulatedDisk
  private var operations: [Operation?] = [nil, nil]
  /// What the writer last read of each file that it could read.
  private var lastReadable: [[String]] = [[], []]
  private var count = 0
  /// How many edits of each style started.
  private(set) var started: [OutsideStyle: Int] = [:]

  init(disk: SimulatedDisk) {
    self.disk = disk
  }

  func isBusy(_ file: SimulatedFile) -> Bool { operations[file.rawValue] != nil }

  /// Starts `edit` of `file`, and performs its first step.
  func start(_ edit: OutsideEdit, of file: SimulatedFile) {
    guard operations[file.rawValue] == nil else { return }
    started[edit.style, default: 0] += 1
    let current = disk.bytes(file)
    let readable = SimulatedDecoding.names(in: current, of: file)
    if let readable { lastReadable[file.rawValue] = readable }
    var names = readable ?? lastReadable[file.rawValue]
    if let removing = edit.removing, !names.isEmpty {
      let removed = names.remove(at: removing % names.count)
      disk.facts.append(.removed(item: removed))
    }
    count += 1
    let own = "o\(count)"
    // The fields of the items it keeps are kept, as an editor keeps what it does not change.
    let fields = SimulatedDecoding.fields(in: current, of: file)
    let edited = file.encode(names + [own], fields: fields, spaced: count % 2 == 0)
    let steps: [Step]
    switch edit.style {
    case .atomic:
      steps = [.writeTemporary(edited), .rename(edited)]
    case .inPlace:
      let third = max(1, edited.count / 3)
      steps = [
        .truncate, .writeInPlace(edited.prefix(third)), .writeInPlace(edited.prefix(2 * third)),
        .writeInPlace(edited),
      ]
    case .append:
      // An item appended before the closing bracket, in place: only for a readable items file
      // (otherwise the edit is written in place whole).
      if file == .items, let current, readable != nil,
        let bracket = current.lastIndex(of: UInt8(ascii: "]"))
      {
        let head = current[..<bracket]
        let separator = readable?.isEmpty == true ? "" : ","
        steps = [
          .writeInPlace(Data(head)),
          .writeInPlace(Data(head) + Data("\(separator){\"id\":\"\(own)\"}]".utf8)),
        ]
      } else {
        steps = [.truncate, .writeInPlace(edited)]
      }
    case .delete:
      steps = [.delete]
    case .recreate:
      steps = [.delete, .create(file.encode([own]))]
    case .replace:
      steps = [.writeTemporary(edited), .delete, .rename(edited)]
    case .garbage:
      let garbage = [
        "{\"items\": [", "\u{0}\u{1}\u{2} not JSON", "[{\"id\": 7}]", "{\"content\": \"x\"}",
      ]
      steps = [.rename(Data(garbage[count % garbage.count].utf8))]
    case .future:
      steps = [.rename(file.futureVersion(names + [own]))]
    case .restore:
      steps = [.rename(edited)]
    case .touch:
      if let current {
        steps = [.writeInPlace(current + Data(" ".utf8))]
      } else {
        steps = []
      }
    case .keepTime:
      steps = [
        .writeKeepingTime(
          sameSize(
            names, own: own, removing: edit.removing, of: file, fields: fields, as: current))
      ]
    case .midSave:
      steps = [.writeTemporary(edited), .renameDuringSave(edited)]
    case .afterSave:
      steps = [.writeTemporary(edited), .renameAfterSave(edited)]
    case .lockRemoved:
      steps = [.removeLockFile]
    }
    operations[file.rawValue] = Operation(
      style: edit.style, steps: steps, basedOn: disk.versions[file.rawValue],
      inode: disk.inode(of: file.path))
    step(file)
  }

  /// The edit's bytes at the size of `current` where they fit: an item removed to make room
  /// for `own` (the schedule's, or else the first), the rest padded with spaces, which JSON
  /// allows.
  private func sameSize(
    _ names: [String], own: String, removing: Int?, of file: SimulatedFile,
    fields: [String: [String: String]], as current: Data?
  ) -> Data {
    var names = names
    if removing == nil, !names.isEmpty {
      disk.facts.append(.removed(item: names.removeFirst()))
    }
    var bytes = file.encode(names + [own], fields: fields)
    if let current, bytes.count < current.count {
      bytes += Data(repeating: UInt8(ascii: " "), count: current.count - bytes.count)
    }
    return bytes
  }

  /// A save of `file` is about to rename its file in: an edit waiting to land during a save
  /// lands now, between the save's look and its rename.
  func landDuringSave(_ file: SimulatedFile) {
    guard case .renameDuringSave? = operations[file.rawValue]?.steps.first else { return }
    step(file)
  }

  /// A save of `file` has just swapped its file in: an edit waiting to land after a save lands
  /// now, before the save comes back.
  func landAfterSave(_ file: SimulatedFile) {
    guard case .renameAfterSave? = operations[file.rawValue]?.steps.first else { return }
    step(file)
  }

  /// Performs the next step of the edit of `file` under way, if any.
  func step(_ file: SimulatedFile) {
    guard var operation = operations[file.rawValue] else { return }
    guard !operation.steps.isEmpty else {
      operations[file.rawValue] = nil
      return
    }
    let step = operation.steps.removeFirst()
    let path = file.path
    let temporary = SimulatedFile.folder.path + "/.\(file.url.lastPathComponent).swp"
    switch step {
    case .writeTemporary(let data):
      disk.writeUnseen(data, at: temporary)
    case .rename(let data), .renameDuringSave(let data), .renameAfterSave(let data):
      if operation.style == .replace, operation.removed, disk.bytes(file) != nil,
        !disk.gapFillerAsked[file.rawValue]
      {
        // The name was emptied by this replacement's own removal: whatever is there now was
        // written into the gap, and this rename replaces it.
        disk.facts.append(.gapFilled(file: file.rawValue))
      }
      disk.writeUnseen(nil, at: temporary)
      disk.replaceInode(at: path)
      disk.write(data, at: path, by: operation.style, basedOn: operation.basedOn)
    case .truncate:
      if disk.inode(of: path) == nil || disk.bytes(file) == nil { disk.replaceInode(at: path) }
      operation.inode = disk.inode(of: path)
      disk.write(Data(), at: path, by: operation.style, basedOn: operation.basedOn)
    case .writeInPlace(let data):
      // NB: a rename by someone else put a new inode at the path: these bytes go to the file
      // the writer opened, which no name reaches any more.
      if let opened = operation.inode, opened == disk.inode(of: path), disk.bytes(file) != nil {
        disk.write(data, at: path, by: operation.style, basedOn: operation.basedOn)
      }
    case .delete:
      if disk.bytes(file) != nil {
        operation.removed = true
        disk.removeInode(at: path)
        disk.write(nil, at: path, by: operation.style, basedOn: operation.basedOn)
      }
    case .create(let data):
      disk.replaceInode(at: path)
      disk.write(data, at: path, by: operation.style, basedOn: operation.basedOn)
    case .removeLockFile:
      disk.removeLockFile(of: path)
    case .writeKeepingTime(let data):
      guard disk.bytes(file) != nil else { break }
      let modified = disk.modifiedTime(at: path)
      disk.write(data, at: path, by: operation.style, basedOn: operation.basedOn)
      disk.putBackModifiedTime(modified, at: path)
    }
    operations[file.rawValue] = operation.steps.isEmpty ? nil : operation
  }

  /// Finishes every edit under way.
  func finishAll() {
    for file in SimulatedFile.allCases {
      while operations[file.rawValue] != nil { step(file) }
    }
  }

  /// Writes back readable content where a file cannot be read, as a person restoring it would:
  /// the last content the writer could read, and an item of its own.
  func restoreUnreadable(_ files: [SimulatedFile]) {
    for file in files {
      let current = disk.bytes(file)
      guard current != nil, SimulatedDecoding.names(in: current, of: file) == nil else { continue }
      start(OutsideEdit(.restore), of: file)
      finishAll()
    }
  }

  /// Seeds `file` before the first launch, as an earlier program left it.
  func seed(_ file: SimulatedFile, with initial: Schedule.Setup.Initial) {
    let path = file.path
    switch initial {
    case .missing:
      return
    case .items(let count):
      disk.replaceInode(at: path)
      let names = (0..<count).map { "s\(file.letter)\($0)" }
      lastReadable[file.rawValue] = names
      disk.write(file.encode(names), at: path, by: .restore, basedOn: nil)
    case .unreadable:
      disk.replaceInode(at: path)
      disk.write(file.futureVersion(["s\(file.letter)0"]), at: path, by: .future, basedOn: nil)
    case .leftover:
      disk.replaceInode(at: path)
      lastReadable[file.rawValue] = ["s\(file.letter)0"]
      let bytes = file.encode(["s\(file.letter)0"])
      disk.write(bytes, at: path, by: .restore, basedOn: nil)
      disk.writeUnseen(
        bytes.prefix(3),
        at: SimulatedFile.folder.path
          + "/.\(file.url.lastPathComponent).keepsake-tmp-\(ProcessFileSystem.deadWriterPID)-0")
    }
  }
}
