import Foundation

/// The programs that work on a user's files beside an app, run for real on the programs
/// campaign's file: the operations, and what each one meant.
///
/// Every operation that writes the file is blind, as these programs are: it reads the file, then
/// writes what it read with its own change, and whatever an app saved in between is gone. The
/// campaign does not hold that against the library: the span from the read to the end of the
/// write (``windows``) excuses an entry saved within it. Its own change (an entry it added, the
/// seed entry's text it edited) is never excused: no save of the library may take it away.
struct OutsidePrograms {
  /// What a program does to the file.
  enum Operation: String, CaseIterable {
    case removeLocks = "rm *.lock"
    case touch = "touch"
    case sameSizeEditKeepingTime = "cp -p: a same-size edit, its time put back"
    case sedInPlace = "sed -i: a same-size edit"
    case syncthingReplace = "Syncthing's replace: rm, then mv a new version in"
    case removeThenCopy = "a script: rm, then cp"
    case copyOver = "cp over the file: an editor ignoring the lock"
    case editorWithBackup = "an editor's save: mv to a backup, cp a new file, rm the backup"
    case damageThenRestore = "a damage (printf >> the file), then cp of a good copy over it"
  }

  /// The file the programs work on.
  let file: URL
  /// What the file holds.
  let document: ProgramsDocument
  /// Where the operations' own files are made, outside the file's folder.
  let sources: URL
  /// From each blind operation's read to the end of its write, on ``ProgramsChild/now()``.
  private(set) var windows: [(start: UInt64, end: UInt64)] = []
  /// The entries the operations added (drafts, or keys of a suite).
  private(set) var added: [String] = []
  /// The seed entry's text as the last edit left it.
  private(set) var lastEdit: String?
  /// How many times each operation ran.
  private(set) var counts: [Operation: Int] = [:]
  /// How many times a program of each operation failed.
  private(set) var failures: [Operation: Int] = [:]
  /// Each operation that ran: its number, its start and end times, and what it was.
  private(set) var journal: [String] = []

  /// The programs this needs, found on `PATH`, or the name of the first one missing.
  static func locate() -> Result<[String: String], ProgramsCampaignError> {
    let folders =
      (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
      + ["/usr/bin", "/bin"]
    var found: [String: String] = [:]
    for name in ["cp", "rm", "mv", "sed", "touch", "sh"] {
      guard
        let path = folders.map({ "\($0)/\(name)" }).first(where: {
          FileManager.default.isExecutableFile(atPath: $0)
        })
      else { return .failure(ProgramsCampaignError("\(name) is not installed")) }
      found[name] = path
    }
    return .success(found)
  }

  private let programs: [String: String]

  init(file: URL, document: ProgramsDocument, sources: URL, programs: [String: String]) {
    self.file = file
    self.document = document
    self.sources = sources
    self.programs = programs
  }

  /// Runs `operation`, the `number`th of the run; returns whether it ran (an operation whose
  /// file it could not read, in the instant of a save's swap, is skipped).
  mutating func perform(_ operation: Operation, number: Int) throws -> Bool {
    let start = ProgramsChild.now()
    switch operation {
    case .removeLocks:
      let folder = file.deletingLastPathComponent()
      let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      let locks = names.filter { $0.hasSuffix(".lock") }.map { folder.appendingPathComponent($0) }
      guard !locks.isEmpty else { return false }
      guard try run("rm", ["-f"] + locks.map(\.path)) else { return failed(operation, start) }
    case .touch:
      guard try run("touch", [file.path]) else { return failed(operation, start) }
    case .sameSizeEditKeepingTime, .sedInPlace:
      guard let data = try? Data(contentsOf: file), let old = document.seed(in: data) else {
        return false
      }
      let new = Self.nextSeed(after: old)
      // NB: the seed's text, quoted, is in the file once, whichever the document.
      if operation == .sedInPlace {
        let script = "s/\"\(old)\"/\"\(new)\"/"
        guard try run("sed", ["-i", script, file.path]) else { return failed(operation, start) }
      } else {
        let source = sources.appendingPathComponent("edit-\(number).json")
        let text = String(decoding: data, as: UTF8.self)
          .replacingOccurrences(of: "\"\(old)\"", with: "\"\(new)\"")
        try Data(text.utf8).write(to: source)
        // The copy takes the file's times, as `cp -p` of an edited copy made beside it does.
        guard try run("touch", ["-r", file.path, source.path]),
          try run("cp", ["-p", source.path, file.path])
        else { return failed(operation, start) }
      }
      lastEdit = new
    case .syncthingReplace, .removeThenCopy, .copyOver, .editorWithBackup, .damageThenRestore:
      let body = "outside-\(number)"
      guard let data = try? Data(contentsOf: file), let written = document.adding(body, to: data)
      else { return false }
      let name =
        operation == .syncthingReplace ? ".syncthing.\(file.lastPathComponent).tmp" : "copy.json"
      let folder = operation == .syncthingReplace ? file.deletingLastPathComponent() : sources
      let source = folder.appendingPathComponent(name)
      try written.write(to: source)
      let ran: Bool
      switch operation {
      case .syncthingReplace:
        ran = try run("rm", [file.path]) && run("mv", [source.path, file.path])
      case .removeThenCopy:
        // NB: `cp` fails here when a process created the file between the `rm` and it (`cp`
        // then refuses to write over a file that appeared), as a script's would.
        ran = try run("rm", [file.path]) && run("cp", [source.path, file.path])
      case .editorWithBackup:
        let backup = file.path + "~"
        ran =
          try run("mv", [file.path, backup]) && run("cp", [source.path, file.path])
          && run("rm", ["-f", backup])
      case .damageThenRestore:
        // The file is unreadable for a while: saves are refused, changes stay pending.
        let damaged = try run("sh", ["-c", "printf 'not json' >> \"$0\"", file.path])
        if damaged { Thread.sleep(forTimeInterval: 0.03) }
        ran = try damaged && run("cp", [source.path, file.path])
      default:
        ran = try run("cp", [source.path, file.path])
      }
      guard ran else { return failed(operation, start) }
      added.append(body)
    }
    if operation != .removeLocks && operation != .touch {
      windows.append((start, ProgramsChild.now()))
    }
    journal.append("\(number) \(start) \(ProgramsChild.now()) \(operation.rawValue)")
    counts[operation, default: 0] += 1
    return true
  }

  /// Notes an operation whose program failed: what it meant to write is not expected in the
  /// file, and what it did before failing (an `rm`) excuses as a blind write does.
  private mutating func failed(_ operation: Operation, _ start: UInt64) -> Bool {
    windows.append((start, ProgramsChild.now()))
    failures[operation, default: 0] += 1
    journal.append("failed \(start) \(ProgramsChild.now()) \(operation.rawValue)")
    return false
  }

  /// Another text of the seed entry, of the same size.
  static func nextSeed(after text: String) -> String {
    let letters = Array("ABCDEFGH")
    let index = text.last.flatMap { letters.firstIndex(of: $0) } ?? -1
    return "seed\(letters[(index + 1) % letters.count])"
  }

  /// Runs the program `name`; returns whether it succeeded (its error is on standard error).
  private func run(_ name: String, _ arguments: [String]) throws -> Bool {
    guard let path = programs[name] else { throw ProgramsCampaignError("\(name) not found") }
    let child = try ChildProcess(executable: path, arguments: arguments, silencingErrors: true)
    _ = child.readRemainingLines()
    return child.wait().succeeded
  }
}

/// Why the programs campaign could not run as set up.
public struct ProgramsCampaignError: Error, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}
