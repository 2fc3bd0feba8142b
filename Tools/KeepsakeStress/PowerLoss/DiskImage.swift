import Foundation

/// The files and folders under a folder, with their bytes: what a power cut left, or what a
/// session started from.
struct DiskImage: Hashable, Sendable {
  /// Each file's bytes, by path relative to the root.
  var files: [String: Data] = [:]
  /// The folders under the root, by relative path (the root itself is always there).
  var folders: Set<String> = []

  /// The pid a materialised temporary file's name carries instead of the recording process's.
  ///
  /// NB: after a power cut no writer from before it is alive, so every temporary file is
  /// abandoned; the recording process still runs the check, so its pid is replaced by one no
  /// process can have (above any `pid_max`).
  static let deadWriterPID: Int32 = .max

  /// Reads the files and folders under `root`.
  ///
  /// - Throws: The error of listing or reading them.
  init(reading root: URL) throws {
    let manager = FileManager.default
    let rootPath = root.path
    guard let enumerator = manager.enumerator(atPath: rootPath) else { return }
    while let relative = enumerator.nextObject() as? String {
      let path = rootPath + "/" + relative
      var isFolder: ObjCBool = false
      guard manager.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
      if isFolder.boolValue {
        folders.insert(relative)
      } else {
        files[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
      }
    }
  }

  /// An image with these files and folders.
  init(files: [String: Data] = [:], folders: Set<String> = []) {
    self.files = files
    self.folders = folders
  }

  /// Writes the image into the empty folder `root`, as a fresh process after the power cut would
  /// find it, with temporary files renamed to carry ``deadWriterPID``.
  ///
  /// - Throws: The error of creating a folder or writing a file.
  func materialise(in root: URL, writerPID: Int32) throws {
    let manager = FileManager.default
    for folder in folders.sorted(by: { $0.count < $1.count }) {
      try manager.createDirectory(
        at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
    }
    let live = ".keepsake-tmp-\(writerPID)-"
    let dead = ".keepsake-tmp-\(Self.deadWriterPID)-"
    for (path, bytes) in files {
      let name = path.replacingOccurrences(of: live, with: dead)
      try bytes.write(to: root.appendingPathComponent(name))
    }
  }
}
