import Foundation

// A program that writes a file in place (`cp` over it, a script's `>`, many editors) truncates
// it, then writes it: a read in between finds it empty or cut short. Such a file changes again
// within moments, so a read whose bytes do not decode looks once more before it calls the file
// unreadable, and reads the version the program finishes. File keys and preferences suites
// read through it alike.

/// How long, and how often, a read waits for a program writing the file in place.
enum InPlaceWrite {
  /// How long a read waits, at most, for a file it cannot decode and that was changed just now
  /// to change again.
  ///
  /// NB: a program's truncate and its write are one system call apart: this is a wait for a
  /// process the scheduler put aside between the two. A file nobody writes costs nothing when
  /// it was changed long ago, and this at most when just now.
  static let wait = Duration.milliseconds(50)

  /// How many times a read reads again a file that keeps changing under it, before it reports
  /// the bytes it has.
  static let rereads = 4

  /// Whether the version `identity` names was written, or its inode changed, within the last
  /// two seconds by the wall clock: what a program writing the file now leaves.
  ///
  /// NB: the change time too: `cp -p` puts an old modification time back once it has written.
  /// A disk that keeps no times (the in-memory one) is never waited for.
  static func wasJustChanged(_ identity: FileIdentity) -> Bool {
    let latest = max(identity.modified, identity.changed)
    guard latest > 0 else { return false }
    let now = Int64(Date().timeIntervalSince1970 * 1_000_000_000)
    return abs(now - latest) < 2_000_000_000
  }
}

extension FileSystem {
  /// Reads the file at `path` and decodes it with `decode`; `nil` when there is no file.
  ///
  /// Bytes that do not decode are read again while the file is being written in place: when
  /// the file has changed since they were read, or changes within ``InPlaceWrite/wait`` of a
  /// change made just now; at most ``InPlaceWrite/rereads`` times. A file that stays as it was
  /// read is reported as it is.
  ///
  /// - Returns: The bytes read, the identity of the version read, and their value or the error
  ///   `decode` threw for them.
  /// - Throws: ``FileSystemError`` when the file cannot be read at all.
  package func contents<Value>(
    atPath path: String, maximumSize: Int, decodedBy decode: (Data) throws -> Value
  ) throws -> (data: Data, identity: FileIdentity?, value: Result<Value, any Error>)? {
    var rereads = 0
    while true {
      guard let (data, identity) = try contents(atPath: path, maximumSize: maximumSize) else {
        return nil
      }
      let value = Result { try decode(data) }
      guard case .failure = value, rereads < InPlaceWrite.rereads, let identity,
        changesAgain(atPath: path, from: identity)
      else { return (data, identity, value) }
      rereads += 1
    }
  }

  /// Whether the file at `path`, read as `identity`, is another version now, or becomes one
  /// within ``InPlaceWrite/wait`` when `identity` was made just now (a program may still be
  /// writing it).
  private func changesAgain(atPath path: String, from identity: FileIdentity) -> Bool {
    let url = URL(fileURLWithPath: path, isDirectory: false)
    var waited = Duration.zero
    var pause = Duration.milliseconds(2)
    while true {
      // NB: a file that cannot be looked at now is read again: the read says why.
      guard let now = try? self.identity(of: url), now == identity else { return true }
      guard waited < InPlaceWrite.wait, InPlaceWrite.wasJustChanged(identity) else {
        return false
      }
      Thread.sleep(forTimeInterval: pause.timeInterval)
      waited += pause
      pause = min(pause * 2, InPlaceWrite.wait - waited)
    }
  }
}
