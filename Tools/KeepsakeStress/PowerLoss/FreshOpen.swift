import DraftsFeature
import Foundation
import Keepsake

/// What a fresh process finds on a disk after a power cut: it opens every key and the
/// preferences suite of the session as an app starting up would.
struct FreshOpen: Sendable {
  /// What one drafts file held and how its key loaded.
  struct KeyFile: Sendable {
    /// The file's bytes before the key opened it, or `nil` when there was none.
    var bytes: Data?
    /// The key's load error, if it could not load.
    var loadError: String?
    /// The file's own temporary files still there once the key was open.
    var temporaryLeft: [String]
  }

  /// The drafts files, by path relative to the root.
  var keys: [String: KeyFile] = [:]
  /// The preferences suite's bytes, or `nil` when there was none.
  var preferences: Data?
  /// The error a fresh preferences store reported, if any.
  var preferencesError: String?
  /// The quarantine copies of the damaged file, with their bytes.
  var quarantineCopies: [String: Data] = [:]
  /// Temporary files still there that belong to no key's own file (a copy's, the suite's).
  var strayTemporary: [String] = []

  /// Materialises `image` in the empty folder `folder`, opens everything on it, and removes it.
  ///
  /// - Throws: The error of writing the image.
  static func observe(_ image: DiskImage, in folder: URL, writerPID: Int32) throws -> FreshOpen {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try image.materialise(in: folder, writerPID: writerPID)
    var found = FreshOpen()
    let context = StorageContext.disk(name: "power-loss fresh process")
    for file in PowerLossSession.keyFiles {
      let url = folder.appendingPathComponent(file)
      let bytes = FileManager.default.contents(atPath: url.path)
      let loadError = StorageContext.withValue(context) { () -> String? in
        // NB: opening the key loads it and starts its watch, which removes abandoned temporary
        // files: the recovery a real start-up runs.
        let shared = Shared(
          .fileStorage(url, format: DraftsFormat.self, saveInterval: .seconds(3600)),
          default: [Draft]())
        // The scratch folder's name differs in every state: left out, the same problem reads
        // the same in each.
        return shared.loadError.map {
          String(describing: $0).replacingOccurrences(of: folder.path + "/", with: "")
        }
      }
      found.keys[file] = KeyFile(bytes: bytes, loadError: loadError, temporaryLeft: [])
    }
    let suiteURL = folder.appendingPathComponent(PowerLossSession.preferences)
    found.preferences = FileManager.default.contents(atPath: suiteURL.path)
    found.preferencesError = PreferencesStores.file(at: suiteURL).lastError.map {
      String(describing: $0)
    }

    for file in PowerLossSession.keyFiles {
      let url = folder.appendingPathComponent(file)
      let prefix = ".\(url.lastPathComponent).keepsake-tmp-"
      found.keys[file]?.temporaryLeft = names(in: url.deletingLastPathComponent()).filter {
        $0.hasPrefix(prefix)
      }
    }
    let own = Set(found.keys.values.flatMap(\.temporaryLeft))
    for relative in allNames(under: folder) {
      let name = (relative as NSString).lastPathComponent
      if name.contains(".keepsake-tmp-") && !own.contains(name) {
        found.strayTemporary.append(relative)
      }
    }
    let damaged = folder.appendingPathComponent(PowerLossSession.damaged)
    for name in names(in: damaged.deletingLastPathComponent())
    where !name.contains(".keepsake-tmp-") {
      let url = damaged.deletingLastPathComponent().appendingPathComponent(name)
      if KeptCopy(url: url)?.original?.lastPathComponent == damaged.lastPathComponent {
        found.quarantineCopies[name] = FileManager.default.contents(atPath: url.path)
      }
    }
    return found
  }

  private static func names(in folder: URL) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
  }

  private static func allNames(under folder: URL) -> [String] {
    (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).sorted()
  }
}
