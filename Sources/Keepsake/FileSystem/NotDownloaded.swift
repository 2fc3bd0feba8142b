import Foundation

/// An iCloud Drive file that is not downloaded yet: "not available yet", never "no file".
///
/// iCloud Drive keeps only some files of a folder on a device, and shows the others two ways:
/// - in an iOS ubiquity container, the file is absent and a placeholder named
///   `.<name>.icloud` is beside it (``placeholderName(for:)``);
/// - on macOS 14 and later, the file is there under its own name but *dataless*
///   (``isDataless(flags:)``): its bytes are downloaded when it is read, and the read blocks
///   meanwhile.
///
/// Taken for "no file yet", the first would make a key's first save write a new file over the
/// person's data; read, the second would block. So a file key treats both as a load error,
/// ``FileSystemError/Reason/notDownloaded``: the reference is protected (nothing is written over
/// the file), nothing is read, a download is asked for where the platform can
/// (``FileSystem/requestDownload(of:)``), and the key loads the file once it arrives (its folder
/// watch sees it).
enum NotDownloaded {
  /// The name of the placeholder iCloud Drive puts beside a file called `name` that it has not
  /// downloaded.
  static func placeholderName(for name: String) -> String { ".\(name).icloud" }

  /// The path of the placeholder of the file at `path`.
  static func placeholderPath(for path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return placeholderName(for: path) }
    let name = path[path.index(after: slash)...]
    return String(path[...slash]) + placeholderName(for: String(name))
  }

  /// `SF_DATALESS`, the `st_flags` bit of a file whose bytes are not on this device.
  static let datalessFlag: UInt32 = 0x4000_0000

  /// Whether a file's `st_flags` say its bytes are not on this device.
  static func isDataless(flags: UInt32) -> Bool { flags & datalessFlag != 0 }

  /// The error for the file at `path`.
  static func error(_ path: String) -> FileSystemError {
    FileSystemError(.read, path: path, reason: .notDownloaded)
  }
}

extension FileSystem {
  /// For a file found missing at `path`: throws ``FileSystemError/Reason/notDownloaded`` when
  /// iCloud Drive's placeholder is beside it, and asks for the file to be downloaded; returns
  /// when there is none (there is no file yet).
  ///
  /// NB: one `stat` of the placeholder, made only when the file is missing.
  func refuseIfNotDownloaded(path: String) throws {
    let placeholder = URL(
      fileURLWithPath: NotDownloaded.placeholderPath(for: path), isDirectory: false)
    guard (try? identity(of: placeholder)) != nil else { return }
    requestDownload(of: URL(fileURLWithPath: path, isDirectory: false))
    throw NotDownloaded.error(path)
  }
}
