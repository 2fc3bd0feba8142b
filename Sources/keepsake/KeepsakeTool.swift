import Foundation
import Keepsake

/// The `keepsake` support tool: inspect Keepsake files, list quarantine copies, restore one.
///
/// Every command only reads, except `restore`, which keeps the file it replaces as a kept copy
/// (`name.kept-<time>.ext`), so nothing is ever lost.
struct KeepsakeTool {
  let fileSystem: any FileSystem

  static let usage = """
    usage: keepsake <command>

    commands:
      inspect FILE                 describe a Keepsake file (never modifies it)
      quarantined FOLDER           list the quarantine, conflict and kept copies in a folder
      restore COPY [FILE]          put a copy back in place of its file (FILE, for a copy whose
                                   name was shortened to fit); the current file is kept as a
                                   kept copy in turn
    """

  /// Runs the command in `arguments` and returns what it prints.
  ///
  /// - Throws: ``ToolError`` with a one-line message.
  func run(_ arguments: [String]) throws(ToolError) -> String {
    guard let command = arguments.first else { throw ToolError("missing command\n\n\(Self.usage)") }
    let rest = Array(arguments.dropFirst())
    func onePath() throws(ToolError) -> URL {
      guard rest.count == 1 else { throw ToolError("\(command) needs exactly one path") }
      return URL(fileURLWithPath: rest[0])
    }
    switch command {
    case "inspect": return try inspect(try onePath())
    case "quarantined": return try quarantined(in: try onePath())
    case "restore":
      guard (1...2).contains(rest.count) else {
        throw ToolError("restore needs a copy, and optionally the file to restore it to")
      }
      return try restore(
        URL(fileURLWithPath: rest[0]), to: rest.count == 2 ? URL(fileURLWithPath: rest[1]) : nil)
    case "help", "-h", "--help": return Self.usage
    default: throw ToolError("unknown command '\(command)'\n\n\(Self.usage)")
    }
  }

  // MARK: - inspect

  func inspect(_ url: URL) throws(ToolError) -> String {
    let data = try read(url)
    var lines = ["file: \(url.path)", "size: \(data.count) bytes"]
    let json: JSONValue
    do {
      json = try JSONValue(parsing: data)
    } catch {
      lines.append("format: unknown")
      lines.append("parses: no (\(error))")
      return lines.joined(separator: "\n")
    }
    let content: JSONValue
    if case .object(let object) = json, let version = object["version"], object["content"] != nil {
      guard case .int(let number) = version else {
        lines.append("format: envelope with an invalid version (\(version.typeName))")
        lines.append("parses: no (the version must be an integer)")
        return lines.joined(separator: "\n")
      }
      lines.append("format: envelope, version \(number)")
      content = object["content"] ?? .null
    } else {
      lines.append("format: legacy, no envelope")
      content = json
    }
    if case .array(let items) = content { lines.append("items: \(items.count)") }
    lines.append("parses: yes (JSON; whether the app can read this version depends on the app)")
    return lines.joined(separator: "\n")
  }

  // MARK: - quarantined

  func quarantined(in folder: URL) throws(ToolError) -> String {
    let names: [String]
    do {
      names = try fileSystem.contentsOfDirectory(at: folder)
    } catch {
      throw ToolError("cannot list \(folder.path): \(error)")
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

  func restore(_ copy: URL, to file: URL? = nil) throws(ToolError) -> String {
    guard Quarantine.isCopy(named: copy.lastPathComponent) else {
      throw ToolError(
        "\(copy.lastPathComponent) is not a quarantine copy (its name has no "
          + "'\(Quarantine.marker)', '\(Quarantine.conflictMarker)' or "
          + "'\(Quarantine.keptMarker)' followed by a time)")
    }
    let folder = copy.deletingLastPathComponent()
    let original: URL
    if let file {
      guard Quarantine.isCopy(named: copy.lastPathComponent, of: file.lastPathComponent),
        file.deletingLastPathComponent().standardizedFileURL == folder.standardizedFileURL
      else {
        throw ToolError(
          "\(copy.lastPathComponent) is not a copy of \(file.path); nothing was changed")
      }
      original = file
    } else {
      let names = (try? fileSystem.contentsOfDirectory(at: folder)) ?? []
      guard let found = Quarantine.originalURL(of: copy, among: names) else {
        throw ToolError(
          "the name of \(copy.lastPathComponent) was shortened to fit the file system's limit, "
            + "and no file in \(folder.path) has the name it stands for; name the file to "
            + "restore: keepsake restore COPY FILE")
      }
      original = found
    }
    let bytes = try read(copy)
    var kept: URL?
    do {
      // NB: under the file's lock, like every Keepsake save, so a running app's save cannot
      // interleave; the app then sees the restore as an outside change (data-safety rule "Processes
      // that share a file lose nothing", DataSafety.md).
      let lock = try fileSystem.lockExclusively(original)
      defer { lock.release() }
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
      try fileSystem.writeAtomically(bytes, to: original)
      try fileSystem.removeItem(at: copy)
    } catch {
      throw ToolError("could not restore \(original.path): \(error); nothing was lost")
    }
    var message = "Restored \(original.path) from \(copy.lastPathComponent)."
    if let kept { message += " The file it replaced was kept as \(kept.lastPathComponent)." }
    return message
  }

  private func read(_ url: URL) throws(ToolError) -> Data {
    do {
      guard let data = try fileSystem.contents(of: url) else {
        throw ToolError("no file at \(url.path)")
      }
      return data
    } catch let error as ToolError {
      throw error
    } catch {
      throw ToolError("cannot read \(url.path): \(error)")
    }
  }
}

/// A command that could not run: a one-line message.
struct ToolError: Error, Equatable, CustomStringConvertible {
  var message: String
  init(_ message: String) { self.message = message }
  var description: String { message }
}
