import Foundation
import Keepsake

/// The `keepsake` support tool: inspect Keepsake files, list quarantine copies, restore one.
///
/// Every command only reads, except `restore`, which keeps the file it replaces as a kept copy
/// (`name.kept-<time>.ext`), so nothing is ever lost.
struct KeepsakeTool {
  let fileSystem: any FileSystem
  /// Whether a folder is there: the file system seam lists a missing folder as empty, and a
  /// support person who mistyped a path must not be told "no copies".
  var folderExists: @Sendable (URL) -> Bool = { url in
    var isFolder: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
      && isFolder.boolValue
  }
  /// The largest file read without `--large`: what apps read.
  var readLimit = FileSystemLimits.defaultMaximumFileSize

  static let usage = """
    usage: keepsake <command>

    commands:
      inspect FILE                 describe a Keepsake file (never modifies it)
      quarantined FOLDER           list the quarantine, conflict and kept copies in a folder
      restore [--large] COPY [FILE]
                                   put a copy back in place of its file (FILE, for a copy whose
                                   name was shortened to fit); the current file is kept as a
                                   kept copy in turn. --large restores a copy larger than apps
                                   read (256 MB), which the app will then refuse to open too

    exit status:
      0  done: the file was read, the folder listed, the copy restored
      1  the command was not understood
      2  the file or folder is not there, or could not be read
      3  the file was read, but it is not a file Keepsake wrote (not JSON, or a bad envelope)
      4  the restore was refused; nothing was changed
    """

  /// Runs the command in `arguments` and returns what it prints, with its exit status.
  ///
  /// - Throws: ``ToolError`` with a one-line message and its exit status.
  func run(_ arguments: [String]) throws(ToolError) -> ToolOutput {
    guard let command = arguments.first else { throw ToolError("missing command\n\n\(Self.usage)") }
    var rest = Array(arguments.dropFirst())
    func onePath() throws(ToolError) -> URL {
      guard rest.count == 1 else { throw ToolError("\(command) needs exactly one path") }
      return URL(fileURLWithPath: rest[0])
    }
    switch command {
    case "inspect": return try inspect(try onePath())
    case "quarantined": return ToolOutput(try quarantined(in: try onePath()))
    case "restore":
      let large = rest.first == "--large"
      if large { rest.removeFirst() }
      guard (1...2).contains(rest.count) else {
        throw ToolError("restore needs a copy, and optionally the file to restore it to")
      }
      return ToolOutput(
        try restore(
          URL(fileURLWithPath: rest[0]), to: rest.count == 2 ? URL(fileURLWithPath: rest[1]) : nil,
          large: large))
    case "help", "-h", "--help": return ToolOutput(Self.usage)
    default: throw ToolError("unknown command '\(command)'\n\n\(Self.usage)")
    }
  }

  // MARK: - inspect

  func inspect(_ url: URL) throws(ToolError) -> ToolOutput {
    let data = try read(url)
    var lines = ["file: \(url.path)", "size: \(data.count) bytes"]
    let json: JSONValue
    do {
      json = try JSONValue(parsing: data)
    } catch {
      lines.append("format: unknown")
      lines.append("parses: no (\(error))")
      return ToolOutput(lines.joined(separator: "\n"), status: .notKeepsake)
    }
    let content: JSONValue
    if case .object(let object) = json, let version = object["version"], object["content"] != nil {
      guard case .int(let number) = version else {
        lines.append("format: envelope with an invalid version (\(version.typeName))")
        lines.append("parses: no (the version must be an integer)")
        return ToolOutput(lines.joined(separator: "\n"), status: .notKeepsake)
      }
      lines.append("format: envelope, version \(number)")
      content = object["content"] ?? .null
    } else {
      lines.append("format: legacy, no envelope")
      content = json
    }
    if case .array(let items) = content { lines.append("items: \(items.count)") }
    lines.append("parses: yes (JSON; whether the app can read this version depends on the app)")
    return ToolOutput(lines.joined(separator: "\n"))
  }

  // MARK: - quarantined

  func quarantined(in folder: URL) throws(ToolError) -> String {
    guard folderExists(folder) else {
      throw ToolError("there is no folder at \(folder.path)", status: .notRead)
    }
    let names: [String]
    do {
      names = try fileSystem.contentsOfDirectory(at: folder)
    } catch {
      throw ToolError("cannot list \(folder.path): \(error)", status: .notRead)
    }
    let copies = names.filter { Quarantine.isCopy(named: $0) }
    guard !copies.isEmpty else { return "No quarantine copies in \(folder.path)." }
    return copies.map { name in
      let url = folder.appendingPathComponent(name)
      // NB: the size from the file's identity: a quarantined file may be far over any limit.
      let size = (try? fileSystem.identity(of: url))?.size ?? 0
      let kind = Quarantine.parse(name)?.kind ?? "copy"
      let original =
        Quarantine.originalURL(of: url, among: names)?.lastPathComponent
        ?? "a file whose name was shortened to fit, not in this folder"
      return "\(name)  (\(kind), \(size) bytes, copy of \(original))"
    }.joined(separator: "\n")
  }

  // MARK: - restore

  /// Puts `copy` back in place of its file, keeping the file it replaces as a kept copy.
  ///
  /// Everything that can refuse the restore is checked before the file's lock is taken, so a
  /// refused restore leaves nothing behind, not even a lock file.
  func restore(_ copy: URL, to file: URL? = nil, large: Bool = false) throws(ToolError) -> String {
    guard Quarantine.isCopy(named: copy.lastPathComponent) else {
      throw ToolError(
        "\(copy.lastPathComponent) is not a copy Keepsake made (its name has no "
          + "'\(Quarantine.marker)', '\(Quarantine.conflictMarker)' or "
          + "'\(Quarantine.keptMarker)' followed by a time); nothing was changed",
        status: .refused)
    }
    let folder = copy.deletingLastPathComponent()
    let original: URL
    if let file {
      guard Quarantine.isCopy(named: copy.lastPathComponent, of: file.lastPathComponent),
        file.deletingLastPathComponent().standardizedFileURL == folder.standardizedFileURL
      else {
        throw ToolError(
          "\(copy.lastPathComponent) is not a copy of \(file.path); nothing was changed",
          status: .refused)
      }
      original = file
    } else {
      let names = (try? fileSystem.contentsOfDirectory(at: folder)) ?? []
      guard let found = Quarantine.originalURL(of: copy, among: names) else {
        throw ToolError(
          "the name of \(copy.lastPathComponent) was shortened to fit the file system's limit, "
            + "and no file in \(folder.path) has the name it stands for; nothing was changed. "
            + "Name the file to restore: keepsake restore COPY FILE",
          status: .refused)
      }
      original = found
    }
    let bytes = try read(copy, large: large)
    var kept: URL?
    do {
      // NB: under the file's lock, like every Keepsake save, so a running app's save cannot
      // interleave; the app then sees the restore as an outside change (data-safety rule "Processes
      // that share a file lose nothing", DataSafety.md).
      let lock = try fileSystem.lockExclusively(original)
      defer { lock.release() }
      // NB: what is kept is what is replaced: a program that ignores the lock and puts another
      // version in meanwhile makes the restore fail, never lose that version.
      let before = try fileSystem.identity(of: original)
      // The file it replaces is kept, named as a kept copy: it is not damaged, only replaced.
      var taken = Set(try fileSystem.contentsOfDirectory(at: folder)).union([copy.lastPathComponent]
      )
      while kept == nil {
        let name = Quarantine.url(
          for: original, existingNames: taken, marker: Quarantine.keptMarker)
        do {
          if try fileSystem.copyItem(at: original, toNew: name) { kept = name } else { break }
        } catch let error as FileSystemError where error.reason == .alreadyExists {
          taken.insert(name.lastPathComponent)
        }
      }
      // The kept copy's link moves the file's change time; anything more is another version.
      let replaced = try fileSystem.identity(of: original)
      guard replaced == before || before?.isSameVersion(as: replaced) == true else {
        throw FileSystemError(.write, path: original.path, reason: .replacedMeanwhile)
      }
      try fileSystem.replaceAtomically(
        bytes, at: original, expecting: replaced, creatingFolder: false)
      try fileSystem.removeItem(at: copy)
    } catch {
      throw ToolError("could not restore \(original.path): \(error); nothing was lost")
    }
    var message = "Restored \(original.path) from \(copy.lastPathComponent)."
    if let kept { message += " The file it replaced was kept as \(kept.lastPathComponent)." }
    return message
  }

  /// The bytes of `url`, up to the size apps read (or any size, when `large`).
  private func read(_ url: URL, large: Bool = false) throws(ToolError) -> Data {
    let limit = large ? Int.max : readLimit
    do {
      guard let data = try fileSystem.contents(of: url, maximumSize: limit) else {
        throw ToolError("no file at \(url.path)", status: .notRead)
      }
      return data
    } catch let error as ToolError {
      throw error
    } catch let error as FileSystemError {
      if case .tooLarge(let size, _) = error.reason {
        throw ToolError(
          "\(url.lastPathComponent) is \(Self.megabytes(size)), larger than apps read "
            + "(\(Self.megabytes(Int64(readLimit)))); nothing was changed. An app would refuse it "
            + "too. To put it back all the same: keepsake restore --large \(url.path)",
          status: large ? .notRead : .refused)
      }
      throw ToolError("cannot read \(url.path): \(error)", status: .notRead)
    } catch {
      throw ToolError("cannot read \(url.path): \(error)", status: .notRead)
    }
  }

  private static func megabytes(_ bytes: Int64) -> String {
    "\((bytes + 999_999) / 1_000_000) MB"
  }
}

/// What a command prints, and the exit status it ends with.
struct ToolOutput: Equatable {
  var text: String
  var status: ToolStatus

  init(_ text: String, status: ToolStatus = .done) {
    self.text = text
    self.status = status
  }
}

/// The exit statuses of the `keepsake` tool, so a script or a support person can tell what
/// happened without reading the text.
enum ToolStatus: Int32, Equatable {
  /// The file was read, the folder listed, the copy restored.
  case done = 0
  /// The command was not understood.
  case usage = 1
  /// The file or folder is not there, or could not be read.
  case notRead = 2
  /// The file was read, but it is not a file Keepsake wrote.
  case notKeepsake = 3
  /// A restore was refused; nothing was changed.
  case refused = 4
}

/// A command that could not run: a one-line message and the exit status it ends with.
struct ToolError: Error, Equatable, CustomStringConvertible {
  var message: String
  var status: ToolStatus
  init(_ message: String, status: ToolStatus = .usage) {
    self.message = message
    self.status = status
  }
  var description: String { message }
}
