import Foundation
import Keepsake

/// The lock of golden fixture hashes: `fixtures.lock`, one `<sha256 hex>  <file name>` line per
/// fixture, so that editing a fixture is a loud, deliberate act.
///
/// Golden fixtures simulate files already on users' devices; they must never change. A test calls
/// ``problems(in:)`` (or ``FixtureLock/expectUnchanged(in:sourceLocation:)`` from Swift Testing),
/// which recomputes every hash and reports each edited, missing or unlocked fixture with what to do.
public enum FixtureLock {
  /// The lock file's name, beside the fixtures.
  public static let fileName = "fixtures.lock"

  /// Why fixtures are locked; part of every failure message.
  static let rule = """
    Golden fixtures are files already written on users' devices by shipped versions of the app. \
    Never edit one to make a test pass: a fixture that fails means the current code can no longer \
    read those users' data. Fix the code (or add a migration) instead. To support a new format \
    version, add a NEW fixture (record it with KEEPSAKE_RECORD_FORMAT=1, which also appends its \
    line here) and commit it with its line in fixtures.lock.
    """

  /// The lock's entries: file name → hex digest.
  public static func entries(in directory: URL) throws -> [String: String] {
    let text = try String(contentsOf: directory.appending(path: fileName), encoding: .utf8)
    var entries: [String: String] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
      let parts = line.split(separator: " ", omittingEmptySubsequences: true)
      guard parts.count == 2 else { continue }
      entries[String(parts[1])] = String(parts[0])
    }
    return entries
  }

  /// The line for `fixture`: `<hex>  <name>`.
  public static func line(forFixtureNamed name: String, in directory: URL) throws -> String {
    let data = try Data(contentsOf: directory.appending(path: name))
    return "\(SHA256.hexDigest(of: data))  \(name)"
  }

  /// Every way the fixtures in `directory` differ from the lock; empty when they match.
  ///
  /// Fixtures are the `.json` files other than recorded shapes (`.shape.json`).
  public static func problems(in directory: URL) -> [String] {
    let entries: [String: String]
    do {
      entries = try Self.entries(in: directory)
    } catch {
      return ["Cannot read \(fileName) in \(directory.path): \(error)\n\n\(rule)"]
    }
    var problems: [String] = []
    for (name, expected) in entries.sorted(by: { $0.key < $1.key }) {
      guard let data = try? Data(contentsOf: directory.appending(path: name)) else {
        problems.append("Fixture \(name) is listed in \(fileName) but missing.\n\n\(rule)")
        continue
      }
      let actual = SHA256.hexDigest(of: data)
      if actual != expected {
        problems.append(
          "Fixture \(name) was edited: its SHA-256 is \(actual), the lock says \(expected).\n\n"
            + "Restore it from version control.\n\n\(rule)")
      }
    }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    for name in names.sorted()
    where name.hasSuffix(".json") && !name.hasSuffix(".shape.json") && entries[name] == nil {
      let line = (try? self.line(forFixtureNamed: name, in: directory)) ?? "<hex>  \(name)"
      problems.append("Fixture \(name) is not in \(fileName). Add this line:\n\(line)\n\n\(rule)")
    }
    return problems
  }

  /// Appends `name`'s line to the lock unless the lock already lists it; never changes a line.
  static func appendIfMissing(fixtureNamed name: String, in directory: URL) throws {
    let url = directory.appending(path: fileName)
    let existing = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    guard (try? entries(in: directory))?[name] == nil else { return }
    let separator = existing.isEmpty || existing.hasSuffix("\n") ? "" : "\n"
    let line = try self.line(forFixtureNamed: name, in: directory)
    try Data((existing + separator + line + "\n").utf8).write(to: url, options: .atomic)
  }
}
