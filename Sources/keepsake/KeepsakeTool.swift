import Foundation
import Keepsake

/// The `keepsake` support tool: inspect Keepsake files, list quarantine copies, restore one.
///
/// Every command only reads, except `restore`, which keeps the file it replaces as a quarantine
/// copy in turn, so nothing is ever lost.
struct KeepsakeTool {
  let fileSystem: any FileSystem

  static let usage = """
    usage: keepsake <command>

    commands:
      inspect FILE                 describe a Keepsake file (never modifies it)
      quarantined FOLDER           list the quarantine and conflict copies in a folder
      restore QUARANTINE_FILE      put a quarantine copy back in place of its file; the current
                                   file is kept as a quarantine copy in turn
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
    case "restore": return try restore(try onePath())
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
      let size = (try? fileSystem.contents(of: url))??.count ?? 0
      let original = Quarantine.originalURL(of: url)?.lastPathComponent ?? "?"
      return "\(name)  (\(size) bytes, copy of \(original))"
    }.joined(separator: "\n")
  }

  // MARK: - restore

  func restore(_ quarantine: URL) throws(ToolError) -> String {
    guard let original = Quarantine.originalURL(of: quarantine) else {
      throw ToolError(
        "\(quarantine.lastPathComponent) is not a quarantine copy (its name has no "
          + "'\(Quarantine.marker)' or '\(Quarantine.conflictMarker)')")
    }
    let bytes = try read(quarantine)
    var kept: URL?
    do {
      // NB: under the file's lock, like every Keepsake save, so a running app's save cannot
      // interleave; the app then sees the restore as an outside change (data-safety rule "Processes
      // that share a file lose nothing", DataSafety.md).
      let lock = try fileSystem.lockExclusively(original)
      defer { lock.release() }
      if let current = try fileSystem.contents(of: original) {
        let names = Set(
          try fileSystem.contentsOfDirectory(at: original.deletingLastPathComponent()))
        let copy = Quarantine.url(
          for: original, existingNames: names.union([quarantine.lastPathComponent]))
        try fileSystem.writeAtomically(current, to: copy)
        kept = copy
      }
      try fileSystem.writeAtomically(bytes, to: original)
      try fileSystem.removeItem(at: quarantine)
    } catch {
      throw ToolError("could not restore \(original.path): \(error); nothing was lost")
    }
    var message = "Restored \(original.path) from \(quarantine.lastPathComponent)."
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
