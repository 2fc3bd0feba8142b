import DraftsFeature
import Foundation
import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Not damaged bytes but the wrong thing at a key's path, which data-safety rule "Bad files get a
/// clear error at once" (DataSafety.md) says is refused at once, without blocking or being read
/// whole, and left as it is.
///
/// Each case is made on the real disk in a folder of its own and loaded through
/// `@Shared(.fileStorage(url, format: DraftsFormat.self))`, which must report a `loadError` that
/// names the problem; a mutation, `flush()` and `save()` must then leave the folder exactly as it
/// was. With an executable the load runs in a child (`keepsake-stress bad-file`) that is killed
/// when it has not answered by the deadline: a hang is counted, not waited for.
public enum BadFileCase: String, CaseIterable, Sendable {
  /// A FIFO (named pipe) with no writer: a plain `open` waits for one forever.
  case fifo
  /// A link to `/dev/zero`: a plain read never ends.
  case deviceLink = "device-link"
  /// A folder where the file should be.
  case directory
  /// A readable drafts file one byte over a small limit.
  case oversized
  /// Two links that point at each other.
  case linkLoop = "link-loop"
  /// A link to a readable file whose name is not valid UTF-8 (`caf\xE9.json`): it cannot be
  /// named exactly, so it cannot be written through.
  case notUTF8Target = "not-utf8-target"

  /// The limit keys read this case with: one byte below the readable fixture written for
  /// ``oversized``, so its size alone refuses it.
  var limit: Int? { self == .oversized ? Fixtures.all[3].bytes.count - 1 : nil }

  /// What the load error's description must say.
  var phrase: String {
    switch self {
    case .fifo: return "it is a FIFO, not a regular file"
    case .deviceLink: return "it is a character device, not a regular file"
    case .directory: return "it is a directory, not a regular file"
    case .oversized: return "more than the limit of \(limit ?? 0) bytes"
    case .linkLoop: return "a loop of symbolic links"
    case .notUTF8Target: return "caf\\xE9.json on the way to the file is not valid UTF-8"
    }
  }

  /// Makes the bad file at `url`, whose folder exists.
  func make(at url: URL) throws {
    let path = url.path
    let made: Int32
    switch self {
    case .fifo: made = mkfifo(path, 0o600)
    case .deviceLink: made = symlink("/dev/zero", path)
    case .directory: made = mkdir(path, 0o700)
    case .oversized:
      try Fixtures.all[3].bytes.write(to: url)
      made = 0
    case .linkLoop:
      made = symlink(path + ".other", path) == 0 ? symlink(path, path + ".other") : -1
    case .notUTF8Target:
      let target = Array("caf".utf8) + [0xE9] + Array(".json".utf8)
      let folder = Array(url.deletingLastPathComponent().path.utf8) + [UInt8(ascii: "/")]
      try RawPath.write(Fixtures.all[3].bytes, to: folder + target)
      made = RawPath.symlink(target, at: Array(path.utf8))
    }
    guard made == 0 else {
      throw ChildProcessError(what: "make a \(rawValue) at \(path)", code: errno)
    }
  }

  /// Loads `url` through `@Shared` on the real disk, then mutates, flushes and saves; the child
  /// side of a case.
  ///
  /// - Returns: `refused` when the key reported a load error naming the problem and refused the
  ///   save, or what happened instead.
  public func load(_ url: URL) async -> String {
    let context = StorageContext(
      name: "bad file \(rawValue)", fileSystem: SystemCalls.live.fileSystem, isIsolated: false
    ) { _ in PreferencesStores.inMemory() }
    let maximum = limit ?? FileSystemLimits.defaultMaximumFileSize
    return await StorageContext.withValue(context) {
      @Shared(.fileStorage(url, format: DraftsFormat.self, maximumFileSize: maximum))
      var drafts: [Draft] = []
      guard let loadError = $drafts.loadError else { return "loaded without error" }
      $drafts.withLock { $0.append(Draft(body: "Escrito junto a un archivo raro")) }
      do {
        try await $drafts.flush()
        return "flush() succeeded over it"
      } catch {}
      do {
        try await $drafts.save()
        return "save() succeeded over it"
      } catch {}
      let description = String(describing: loadError)
      return description.contains(phrase) ? "refused" : "refused unclearly: \(description)"
    }
  }
}
