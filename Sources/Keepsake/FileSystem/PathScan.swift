/// A path's UTF-8 bytes, looked at in one buffer: the scans every file key's creation makes of
/// its path.
///
/// NB: a loop over `String.UTF8View` checks the string's storage and bounds at every byte, many
/// times the work of a loop over the buffer, and a file key's creation scanned its path about
/// ten times this way, a sizable part of its cost (see "Costs the code avoids" in
/// Benchmarks/README.md). A `/` byte is always a whole character in UTF-8, so offsets found here
/// are character boundaries.
enum PathScan {
  static let slash = UInt8(ascii: "/")

  /// Runs `body` over the bytes of `path`: a native string's own storage, or a copy of a bridged
  /// one's.
  @inline(__always)
  static func withBytes<R>(_ path: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let result = path.utf8.withContiguousStorageIfAvailable(body) { return result }
    return Array(path.utf8).withUnsafeBufferPointer(body)
  }

  /// The offset of the last `/` in `path`, if any.
  static func lastSlash(in path: String) -> Int? {
    withBytes(path) { bytes in
      var index = bytes.count
      while index > 0 {
        index -= 1
        if bytes[index] == slash { return index }
      }
      return nil
    }
  }

  /// The folder and the name of `path`, split at its last `/`: `"/a/b.json"` is `("/a",
  /// "b.json")`, `"/b.json"` is `("/", "b.json")`; `nil` for a path without a `/`.
  static func split(_ path: String) -> (parent: String, name: String)? {
    guard let slash = lastSlash(in: path) else { return nil }
    let parent = slash == 0 ? "/" : part(of: path, 0..<slash)
    return (parent, part(of: path, (slash + 1)..<path.utf8.count))
  }

  /// Whether `path` holds `byte`.
  static func contains(_ byte: UInt8, in path: String) -> Bool {
    withBytes(path) { bytes in bytes.contains(byte) }
  }

  /// How many `/` `path` holds.
  static func slashCount(in path: String) -> Int {
    withBytes(path) { bytes in
      var count = 0
      for byte in bytes where byte == slash { count += 1 }
      return count
    }
  }

  /// Whether `path` is absolute, and has no empty, `.` or `..` component and no trailing `/`.
  static func isStandard(_ path: String) -> Bool {
    withBytes(path) { bytes in
      guard bytes.first == slash else { return false }
      if bytes.count == 1 { return true }
      let dot = UInt8(ascii: ".")
      // The bytes since the last slash: how many, and whether all were dots.
      var length = 0
      var onlyDots = true
      for byte in UnsafeBufferPointer(rebasing: bytes[1...]) {
        if byte == slash {
          if length == 0 || (onlyDots && length <= 2) { return false }
          length = 0
          onlyDots = true
        } else {
          length += 1
          if byte != dot { onlyDots = false }
        }
      }
      return length > 0 && !(onlyDots && length <= 2)
    }
  }

  /// The byte range of the first component of `path` longer than `limit` bytes, if any.
  static func firstComponent(of path: String, longerThan limit: Int) -> Range<Int>? {
    withBytes(path) { bytes in
      var start = 0
      for index in 0...bytes.count where index == bytes.count || bytes[index] == slash {
        if index - start > limit { return start..<index }
        start = index + 1
      }
      return nil
    }
  }

  /// The part of `path` in the byte range `range`, which starts and ends at `/` or an end.
  static func part(of path: String, _ range: Range<Int>) -> String {
    withBytes(path) { bytes in
      String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
  }
}
