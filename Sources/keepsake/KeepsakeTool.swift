import Foundation
import Keepsake

/// The `keepsake` support tool: inspect Keepsake files, list quarantine copies, restore one.
///
/// Every command only reads, except `restore`, which keeps the file it replaces as a kept copy
/// (`name.kept-<time>.ext`), so nothing is ever lost.
struct KeepsakeTool {
  /// Where files are read and restored: the real disk, or a test's.
  let context: StorageContext
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
                                   read (256 MiB), which the app will then refuse to open too

    exit status:
      0  done: the file was read, the folder listed, the copy restored
      1  the command was not understood
      2  the file or folder is not there, or could not be read
      3  the file was read, but it is not a file Keepsake wrote (not JSON, or a bad envelope)
      4  the restore was refused; nothing was changed
      5  the restore could not finish; nothing was lost
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
    let copies: [KeptCopy]
    do {
      copies = try context.keptCopies(in: folder)
    } catch let error as FileSystemError where error.reason == .posix(code: ENOENT) {
      // NB: a file given for its folder (the file whose copies are wanted) is told apart from
      // a mistyped path: an identity, or an error about what is there, means something is.
      let somethingIsThere: Bool
      do {
        somethingIsThere = try context.fileSystem.identity(of: folder) != nil
      } catch {
        somethingIsThere = true
      }
      guard somethingIsThere else {
        throw ToolError("there is no folder at \(folder.path)", status: .notRead)
      }
      throw ToolError(
        "\(folder.path) is not a folder; list the folder that holds it: keepsake quarantined "
          + folder.deletingLastPathComponent().path, status: .notRead)
    } catch {
      throw ToolError("cannot list \(folder.path): \(error)", status: .notRead)
    }
    guard !copies.isEmpty else { return "No quarantine copies in \(folder.path)." }
    return copies.map { copy in
      // NB: the size from the file's identity: a quarantined file may be far over any limit.
      let size = (try? context.fileSystem.identity(of: copy.url))?.size ?? 0
      let original =
        copy.original?.lastPathComponent
        ?? "a file whose name was shortened to fit, not in this folder"
      return "\(copy.url.lastPathComponent)  (\(copy.reason.rawValue), \(size) bytes, copy of "
        + "\(original))"
    }.joined(separator: "\n")
  }

  // MARK: - restore

  /// Puts `copy` back in place of its file, keeping the file it replaces as a kept copy.
  ///
  /// Everything that can refuse the restore is checked before the file's lock is taken, so a
  /// refused restore leaves nothing behind, not even a lock file.
  func restore(_ url: URL, to file: URL? = nil, large: Bool = false) throws(ToolError) -> String {
    guard KeptCopy(url: url) != nil else {
      throw ToolError(
        "\(url.lastPathComponent) is not a copy Keepsake made (its name has no "
          + KeptCopy.Reason.allCases.map { "'.\($0.rawValue)-'" }.joined(separator: ", ")
          + " followed by a time); nothing was changed",
        status: .refused)
    }
    let folder = url.deletingLastPathComponent()
    let copy: KeptCopy
    if let file {
      guard let named = KeptCopy(url: url, of: file) else {
        throw ToolError(
          "\(url.lastPathComponent) is not a copy of \(file.path); nothing was changed",
          status: .refused)
      }
      copy = named
    } else {
      let listed = (try? context.keptCopies(in: folder))?.first {
        $0.url.lastPathComponent == url.lastPathComponent
      }
      guard let listed, listed.original != nil else {
        throw ToolError(
          "the name of \(url.lastPathComponent) was shortened to fit the file system's limit, "
            + "and no file in \(folder.path) has the name it stands for; nothing was changed. "
            + "Name the file to restore: keepsake restore COPY FILE",
          status: .refused)
      }
      copy = listed
    }
    let original = copy.original?.path ?? url.path
    let kept: KeptCopy?
    do {
      kept = try context.restore(copy, maximumSize: large ? Int.max : readLimit)
    } catch let error as FileSystemError where error.operation == .read && error.path == url.path {
      // The copy itself could not be read: refused before the file's lock was taken.
      throw readFailure(error, url, large: large)
    } catch {
      throw ToolError("could not restore \(original): \(error); nothing was lost", status: .failed)
    }
    var message = "Restored \(original) from \(url.lastPathComponent)."
    if let kept { message += " The file it replaced was kept as \(kept.url.lastPathComponent)." }
    return message
  }

  /// The bytes of `url`, up to the size apps read (or any size, when `large`).
  private func read(_ url: URL, large: Bool = false) throws(ToolError) -> Data {
    do {
      guard
        let data = try context.fileSystem.contents(
          of: url, maximumSize: large ? Int.max : readLimit)
      else { throw FileSystemError(.read, path: url.path, reason: .posix(code: ENOENT)) }
      return data
    } catch {
      throw readFailure(error, url, large: large)
    }
  }

  /// What to say when `url` could not be read.
  private func readFailure(_ error: any Error, _ url: URL, large: Bool) -> ToolError {
    guard let error = error as? FileSystemError else {
      return ToolError("cannot read \(url.path): \(error)", status: .notRead)
    }
    switch error.reason {
    case .posix(code: ENOENT): return ToolError("no file at \(url.path)", status: .notRead)
    case .tooLarge(let size, _):
      return ToolError(
        "\(url.lastPathComponent) is \(Self.megabytes(size)), larger than apps read "
          + "(\(Self.megabytes(Int64(readLimit)))); nothing was changed. An app would refuse it "
          + "too. To put it back all the same: keepsake restore --large \(url.path)",
        status: large ? .notRead : .refused)
    default: return ToolError("cannot read \(url.path): \(error)", status: .notRead)
    }
  }

  private static func megabytes(_ bytes: Int64) -> String {
    "\((bytes + 1_048_575) / 1_048_576) MiB"
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
  /// A restore could not finish (a version came in meanwhile, the disk failed); nothing was
  /// lost.
  case failed = 5
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
