import Foundation

/// Where a file key's file is: as the app named it until the key is used in a context, then
/// with its links resolved (see `FileStorageKey.resolved(in:)`).
final class FileLocation: Sendable {
  /// The key's identity (see `FileStorageKey.id`).
  let id: SharedKeyID
  let file: URL
  /// `file`'s path.
  let filePath: String
  /// The path of `file`'s folder.
  let folderPath: String
  /// Why the path cannot name a file Keepsake can keep, if it cannot.
  let problem: FileSystemError?

  init(id: SharedKeyID, file: URL, filePath: String, problem: FileSystemError?) {
    self.id = id
    self.file = file
    self.filePath = filePath
    self.folderPath = FolderPath.parent(of: filePath) ?? file.deletingLastPathComponent().path
    self.problem = problem
  }
}
