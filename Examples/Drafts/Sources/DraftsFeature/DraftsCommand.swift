import Foundation
import Keepsake

/// One invocation of the `drafts` program: what to do and which store to do it on.
///
/// Parsing and running are separate so tests run commands in-process, against the test's own
/// storage, and the executable stays a thin shell around them.
public struct DraftsCommand: Equatable, Sendable {
  /// What the command does.
  public enum Action: Equatable, Sendable {
    case add(text: String)
    case list(json: Bool)
    case edit(id: String, text: String)
    case pin(id: String)
    case unpin(id: String)
    case discard(id: String)
    case path
    case help
  }

  /// What the command does.
  public var action: Action
  /// The store it works on.
  public var storeURL: URL

  /// The usage text.
  public static let usage = """
    usage: drafts [--store PATH] [--in-memory-storage] <command>

    commands:
      add TEXT          add a draft
      list [--json]     list the drafts (--json: the stored drafts as JSON)
      edit ID TEXT      replace a draft's text
      pin ID            pin a draft
      unpin ID          unpin a draft
      discard ID        discard a draft
      path              print where the drafts are stored

    --in-memory-storage runs on storage in memory: a demo that never touches the store.
    IDs may be abbreviated to a unique prefix. The store is $KEEPSAKE_DRAFTS_STORE, else
    $XDG_DATA_HOME/keepsake-drafts/drafts.json, else ~/.local/share/keepsake-drafts/drafts.json.
    """

  /// Parses the program's arguments (without the program name).
  ///
  /// - Throws: ``DraftsError`` for an unknown command, a missing or extra argument.
  public static func parse(
    _ arguments: [String], environment: [String: String]
  ) throws(DraftsError) -> DraftsCommand {
    var words: [String] = []
    var store: URL?
    var json = false
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      switch argument {
      case "--store":
        guard index + 1 < arguments.count, !arguments[index + 1].isEmpty else {
          throw DraftsError("--store needs a path")
        }
        store = URL(fileURLWithPath: arguments[index + 1])
        index += 2
        continue
      case "--json":
        json = true
      case "-h", "--help":
        words = ["help"]
        index = arguments.count
        continue
      default:
        words.append(argument)
      }
      index += 1
    }
    let url = store ?? DraftsLocation.url(environment: environment)
    guard let verb = words.first else { throw DraftsError("missing command\n\n\(usage)") }
    let rest = Array(words.dropFirst())
    if json && verb != "list" { throw DraftsError("--json only applies to list") }

    func text(_ words: [String]) throws(DraftsError) -> String {
      let text = words.joined(separator: " ")
      guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
        throw DraftsError("a draft needs some text")
      }
      return text
    }
    func onlyID() throws(DraftsError) -> String {
      guard rest.count == 1 else { throw DraftsError("\(verb) needs exactly one ID") }
      return rest[0]
    }

    let action: Action
    switch verb {
    case "add": action = .add(text: try text(rest))
    case "list":
      guard rest.isEmpty else { throw DraftsError("list takes no arguments") }
      action = .list(json: json)
    case "edit":
      guard let id = rest.first else { throw DraftsError("edit needs an ID and the new text") }
      action = .edit(id: id, text: try text(Array(rest.dropFirst())))
    case "pin": action = .pin(id: try onlyID())
    case "unpin": action = .unpin(id: try onlyID())
    case "discard": action = .discard(id: try onlyID())
    case "path":
      guard rest.isEmpty else { throw DraftsError("path takes no arguments") }
      action = .path
    case "help": action = .help
    default: throw DraftsError("unknown command '\(verb)'\n\n\(usage)")
    }
    return DraftsCommand(action: action, storeURL: url)
  }
}

/// A command that could not run: a one-line message for the person who typed it.
public struct DraftsError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What went wrong and, where it helps, what to do.
  public var message: String

  /// Creates an error.
  public init(_ message: String) { self.message = message }

  public var description: String { message }
}
