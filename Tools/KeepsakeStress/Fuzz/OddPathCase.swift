import DraftsFeature
import Foundation
import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Not a bad file but an unusual path to a good one, which must simply work (see the Data safety
/// article on links and names): a link whose target does not exist yet, two paths to one file, a
/// hard link, a name of the longest length a file system allows, a neighbour whose name is not
/// valid UTF-8.
///
/// Each case is made on the real disk in a folder of its own, loaded through
/// `@Shared(.fileStorage(url, format: DraftsFormat.self))`, changed and saved, and read back by a
/// fresh context; whatever the case made beside the file (the link, the other name, the
/// neighbour) must be exactly as it was. Like ``BadFileCase``, with an executable each runs in a
/// child killed at a deadline.
public enum OddPathCase: String, CaseIterable, Sendable {
  /// `drafts.json -> target.json`, with no `target.json` yet.
  case danglingLink = "dangling-link"
  /// `drafts.json -> sub/target.json`, with no `sub` folder yet.
  case danglingLinkIntoFolder = "dangling-link-into-folder"
  /// `linked/drafts.json` and `real/drafts.json`, where `linked -> real`: one file, one key.
  case twoPaths = "two-paths"
  /// `drafts.json` and `first.json`, two names of one file: two keys that never wait for each
  /// other.
  case hardLink = "hard-link"
  /// A name of 255 bytes: its lock, temporary and copies' names must fit too.
  case maximalName = "maximal-name"
  /// `drafts.json` beside `caf\xE9.json` and an abandoned temporary file of that name, which
  /// Keepsake cannot name and so must never touch.
  case notUTF8Neighbour = "not-utf8-neighbour"

  /// The key's file, in the case's folder.
  public func url(in folder: URL) -> URL {
    switch self {
    case .twoPaths: return folder.appendingPathComponent("linked/drafts.json")
    case .maximalName:
      return folder.appendingPathComponent(String(repeating: "m", count: 250) + ".json")
    default: return folder.appendingPathComponent("drafts.json")
    }
  }

  /// Another name of the same file, for the cases that have one.
  func otherURL(in folder: URL) -> URL? {
    switch self {
    case .twoPaths: return folder.appendingPathComponent("real/drafts.json")
    case .hardLink: return folder.appendingPathComponent("first.json")
    default: return nil
    }
  }

  /// The entries a save may replace or make, relative to the folder; everything else must stay.
  var replaced: Set<String> {
    switch self {
    case .danglingLink: return ["target.json", "target.json.lock"]
    case .danglingLinkIntoFolder: return ["sub", "sub/target.json", "sub/target.json.lock"]
    case .twoPaths: return ["real", "real/drafts.json", "real/drafts.json.lock"]
    case .hardLink: return ["drafts.json", "drafts.json.lock", "first.json", "first.json.lock"]
    case .maximalName:
      let name = String(repeating: "m", count: 250) + ".json"
      return [name, FileLock.lockFileName(for: name)]
    case .notUTF8Neighbour: return ["drafts.json", "drafts.json.lock"]
    }
  }

  /// Makes the case in `folder`, which exists.
  func make(in folder: URL) throws {
    let fixture = Fixtures.all[3].bytes
    let manager = FileManager.default
    switch self {
    case .danglingLink:
      try manager.createSymbolicLink(
        atPath: url(in: folder).path, withDestinationPath: "target.json")
    case .danglingLinkIntoFolder:
      try manager.createSymbolicLink(
        atPath: url(in: folder).path, withDestinationPath: "sub/target.json")
    case .twoPaths:
      try manager.createDirectory(
        at: folder.appendingPathComponent("real"), withIntermediateDirectories: false)
      try fixture.write(to: folder.appendingPathComponent("real/drafts.json"))
      try manager.createSymbolicLink(
        atPath: folder.appendingPathComponent("linked").path, withDestinationPath: "real")
    case .hardLink:
      let first = folder.appendingPathComponent("first.json")
      try fixture.write(to: first)
      guard link(first.path, url(in: folder).path) == 0 else {
        throw ChildProcessError(what: "link \(first.path)", code: errno)
      }
    case .maximalName:
      try fixture.write(to: url(in: folder))
    case .notUTF8Neighbour:
      try fixture.write(to: url(in: folder))
      let base = Array(folder.path.utf8) + [UInt8(ascii: "/")]
      let name = Array("caf".utf8) + [0xE9] + Array(".json".utf8)
      try RawPath.write(fixture, to: base + name)
      // Left by a writer that is gone; its name cannot be given back to the system exactly.
      let temporary = [UInt8(ascii: ".")] + name + Array(".keepsake-tmp-99999999-1".utf8)
      try RawPath.write(Data("half".utf8), to: base + temporary)
    }
  }

  /// Loads the key at `url`, changes and saves it, and reads it back; the child side of a case.
  ///
  /// - Returns: `works` when every step did what it should, or what happened instead.
  public func run(_ url: URL) async -> String {
    let folder = url.deletingLastPathComponent()
    let root = self == .twoPaths ? folder.deletingLastPathComponent() : folder
    let context = Self.context("odd path \(rawValue)")
    let added = Draft(body: "Guardado por un camino raro")
    do {
      try await StorageContext.withValue(context) {
        @Shared(.fileStorage(url, format: DraftsFormat.self)) var drafts: [Draft] = []
        if let loadError = $drafts.loadError { throw Outcome("load error: \(loadError)") }
        $drafts.withLock { $0.append(added) }
        try await $drafts.save()
        guard let other = otherURL(in: root) else { return }
        @Shared(.fileStorage(other, format: DraftsFormat.self)) var second: [Draft] = []
        if (self == .twoPaths) != ($second.keyID == $drafts.keyID) {
          throw Outcome("keys \($drafts.keyID) and \($second.keyID): wrong identity")
        }
        // NB: a save of the other name inside a transaction on this one must not wait for it
        // (a deadlock used to end after 30 s with a lock error).
        try await $drafts.withTransaction {
          $second.withLock { $0.append(Draft(body: "por el otro nombre")) }
          try await $second.save()
        }
      }
    } catch let outcome as Outcome {
      return outcome.text
    } catch {
      return "failed: \(error)"
    }
    // A fresh context, as a later launch: the draft must be there.
    return StorageContext.withValue(Self.context("read back \(rawValue)")) {
      @Shared(.fileStorage(url, format: DraftsFormat.self)) var drafts: [Draft] = []
      if let loadError = $drafts.loadError { return "read back: \(loadError)" }
      return drafts.contains { $0.id == added.id } ? "works" : "read back without the new draft"
    }
  }

  private static func context(_ name: String) -> StorageContext {
    StorageContext(name: name, fileSystem: SystemCalls.live.fileSystem, isIsolated: false) { _ in
      PreferencesStores.inMemory()
    }
  }

  /// What went wrong in a step, as the case's outcome.
  private struct Outcome: Error {
    var text: String
    init(_ text: String) { self.text = text }
  }
}
