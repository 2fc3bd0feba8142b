import Foundation

/// A fresh folder under the system's temporary folder for one campaign run, removed when the
/// campaign ends.
public struct ScratchFolder: Sendable {
  /// The folder.
  public let url: URL

  /// Creates an empty folder named after `campaign` and a random suffix.
  ///
  /// - Throws: The error of creating the folder.
  public init(campaign: String) throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("keepsake-stress-\(campaign)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// The names of the temporary files Keepsake's atomic writes left in the folder.
  public func temporaryFiles() -> [String] {
    Self.temporaryFiles(in: url)
  }

  /// The names of the temporary files Keepsake's atomic writes left in `folder`.
  public static func temporaryFiles(in folder: URL) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    // NB: the marker of Keepsake's temporary files (`TemporaryFile.marker`, internal to
    // Keepsake): `.<name>.keepsake-tmp-<pid>-<random>`.
    return names.filter { $0.contains(".keepsake-tmp-") }.sorted()
  }

  /// The process id in a temporary file's name, or `nil` when it has none.
  public static func writerPID(ofTemporaryFile name: String) -> Int32? {
    guard let range = name.range(of: ".keepsake-tmp-") else { return nil }
    return name[range.upperBound...].split(separator: "-").first.flatMap { Int32($0) }
  }

  /// Removes the folder and everything in it.
  public func remove() {
    try? FileManager.default.removeItem(at: url)
  }
}
