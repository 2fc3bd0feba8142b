import Foundation

/// The names Keepsake makes beside a file (its lock, its temporary files, its quarantine and
/// conflict copies), kept within the file system's limit on a name's length.
///
/// A name the file system accepts can be up to ``FileSystemLimits/maximumNameLength`` bytes, and
/// every name made from it adds to it (`.lock`, `.quarantined-<time>`, a temporary file's marker
/// and process id). A name that would not fit is shortened: the start of the original name, cut
/// at a character, then `~` and 16 hexadecimal digits of a digest of the whole name, so two long
/// names that start alike still get names of their own, and every process makes the same name
/// for the same file (which is what lets them share one lock file).
enum FileName {
  /// `path` as a file system that ignores case and Unicode normalization (APFS's default) sees
  /// it: two spellings of one name give one folded path.
  static func folded(_ path: String) -> String {
    path.precomposedStringWithCanonicalMapping.folding(
      options: [.caseInsensitive, .widthInsensitive], locale: nil)
  }

  /// The length of what ``fitting(_:within:)`` puts after the start of a shortened name.
  static let digestLength = 17

  /// `name` when it is at most `budget` bytes long in UTF-8, else a shortened stand-in of at most
  /// `budget` bytes.
  static func fitting(_ name: String, within budget: Int) -> String {
    let length = name.utf8.count
    guard length > budget else { return name }
    return prefix(of: name, bytes: max(0, budget - digestLength)) + "~" + digest(name)
  }

  /// Whether `name` has the shape ``fitting(_:within:)`` gives a shortened name.
  static func looksShortened(_ name: Substring) -> Bool {
    let bytes = Array(name.utf8)
    guard bytes.count >= digestLength, bytes[bytes.count - digestLength] == UInt8(ascii: "~")
    else { return false }
    return bytes.suffix(digestLength - 1).allSatisfy { byte in
      (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
  }

  /// The longest start of `name` of at most `bytes` bytes that ends between two characters.
  private static func prefix(of name: String, bytes: Int) -> String {
    var end = name.startIndex
    var used = 0
    for index in name.indices {
      let next = name.index(after: index)
      let size = name.utf8[index..<next].count
      if used + size > bytes { break }
      used += size
      end = next
    }
    return String(name[..<end])
  }

  /// 16 hexadecimal digits of the 64-bit FNV-1a digest of `name`'s UTF-8 bytes.
  ///
  /// NB: never change this function: processes of every Keepsake version must agree on a long
  /// file's lock name, or two of them would lock different files and overwrite each other. It
  /// needs no cryptographic strength: it only separates long names that share a start, in one
  /// folder.
  static func digest(_ name: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in name.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    let digits = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}
