import Foundation
import Testing

@testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The text of file errors, pinned exactly: each says what happened to the file and what to do
/// (data-safety rule "Errors are typed and say what to do").
@Suite("File system errors")
struct FileSystemErrorTests {
  static let isADirectory = String(cString: strerror(EISDIR))

  @Test(
    "Each error says what was found, what became of the file, and what to do",
    arguments: [
      (
        FileSystemError(.write, path: "/d/n.json", reason: .valueTooLarge(size: 2024, limit: 1000)),
        "Could not write /d/n.json: the value is 2024 bytes once encoded, more than the key's "
          + "maximumFileSize of 1000 bytes, which it could not read back, so nothing was written "
          + "and the file is as it was; store less or raise maximumFileSize."
      ),
      (
        FileSystemError(
          .read, path: "/d/x.json", reason: .nameTooLong(name: "x.json", length: 256, limit: 255)),
        "Could not read /d/x.json: the name 'x.json' is 256 bytes long, more than the 255 bytes a "
          + "file system allows, so nothing was read or written; use a shorter name."
      ),
      (
        FileSystemError(.read, path: "/d", reason: .pathTooLong(length: 5000, limit: 4095)),
        "Could not read /d: the path is 5000 bytes long, more than the 4095 bytes the system "
          + "accepts, so nothing was read or written; use a shorter path."
      ),
      (
        FileSystemError(.read, path: "/d/l.json", reason: .nameNotUTF8(name: "/d/caf\\xE9.json")),
        "Could not read /d/l.json: the name /d/caf\\xE9.json on the way to the file is not valid "
          + "UTF-8, so the file cannot be named exactly and nothing was read or written; rename it "
          + "to a UTF-8 name."
      ),
      (
        FileSystemError(.write, path: "/d/c.json", reason: .alreadyExists),
        "Could not write /d/c.json: something already has that name, and it was left as it was."
      ),
      (
        FileSystemError(.lock, path: "/d/n.json.lock", reason: .lockHeldByThisProcess(seconds: 30)),
        "Could not lock /d/n.json.lock: this process itself held the file's lock for 30 seconds "
          + "(another storage context, or a transaction waiting for this save); nothing was "
          + "written: do not save a file from inside a transaction on the same file in another "
          + "storage context."
      ),
      (
        FileSystemError(.lock, path: "/d/n.json.lock", reason: .permissionDenied),
        "Could not lock /d/n.json.lock: permission denied; Keepsake keeps the lock of a file in a "
          + "file beside it, so nothing was written: allow this user to create and write files in "
          + "the folder."
      ),
      (
        FileSystemError(.write, path: "/d/n.json", reason: .diskFull),
        "Could not write /d/n.json: the disk is full; the file is as it was: free some space and "
          + "save again."
      ),
      (
        FileSystemError(.fsync, path: "/d", reason: .ioError),
        "Could not flush to disk /d: an input/output error: the disk may be failing; copy the "
          + "data somewhere safe."
      ),
      (
        FileSystemError(.rename, path: "/d/n.json", reason: .posix(code: EISDIR)),
        "Could not rename into place /d/n.json: " + Self.isADirectory + "; a folder "
          + "has the file's name, and it was left as it was: move it away."
      ),
    ] as [(FileSystemError, String)])
  func descriptions(_ error: FileSystemError, _ text: String) {
    #expect(error.description == text)
  }

  @Test("EEXIST is a name already taken")
  func eexist() {
    #expect(FileSystemError.Reason(errno: EEXIST) == .alreadyExists)
  }
}
