/// The names sync engines give the other version of a file, and how to tell them apart from
/// every other name in the folder.
///
/// Each engine inserts a tag before the file's extension (its last `.`, as `x.tar.gz` loses only
/// `.gz`):
/// - Syncthing: `.sync-conflict-YYYYMMDD-HHMMSS-DEVICE7` (before 0.14, without the device);
/// - Dropbox: ` (WHO's conflicted copy YYYY-MM-DD)`, ` (WHO's conflicted copy YYYY-MM-DD (N))`,
///   ` (conflicted copy YYYY-MM-DD)`;
/// - Nextcloud and ownCloud 2.5 and later: ` (conflicted copy [USER ]YYYY-MM-DD HHMMSS)`;
/// - ownCloud and Nextcloud before: `_conflict-YYYYMMDD-HHMMSS`, `_conflict_USER-YYYYMMDD-HHMMSS`.
///
/// NB: matched by hand, digit by digit, rather than with `Regex`: this runs for every name of a
/// watched folder on every change in it.
enum ConflictCopyName {
  /// The engine whose conflict copy of `fileName` the name `candidate` is, or `nil` when it is
  /// not one (the file itself, another file, a copy of another file, Keepsake's own copies).
  static func engine(ofCopy candidate: String, of fileName: String) -> SyncEngine? {
    let (stem, ext) = split(fileName)
    // NB: compared as bytes: `hasPrefix` compares canonically equivalent characters, whose
    // bytes may differ in length.
    guard candidate.utf8.count > fileName.utf8.count,
      candidate.utf8.starts(with: stem.utf8),
      candidate.utf8.reversed().starts(with: ext.utf8.reversed())
    else { return nil }
    let tag = Substring(candidate.utf8.dropFirst(stem.utf8.count).dropLast(ext.utf8.count))
    if isSyncthing(tag) { return .syncthing }
    if isDropbox(tag) { return .dropbox }
    if isNextcloud(tag) { return .nextcloud }
    if isOldOwnCloud(tag) { return .ownCloud }
    return nil
  }

  /// Whether `candidate` might be any engine's copy of some file: a cheap first look for the
  /// watcher, which hands every name in the folder to each key.
  ///
  /// NB: searched as bytes: Foundation's `contains` is costly on Linux, and this runs for every
  /// name of every event in a watched folder, for each key in it.
  /// A byte search finds every match a character search does (the tags are ASCII),
  /// and ``engine(ofCopy:of:)`` decides. The name's bytes are searched in place: a copy of them
  /// was an allocation for every key of the folder at every event (each commit of another
  /// process makes four).
  static func mightBeCopy(_ candidate: String) -> Bool { contains(candidate, anyOf: tags) }

  /// Whether `candidate`'s bytes hold one of `tags`, searched in place (see
  /// ``mightBeCopy(_:)``).
  static func contains(_ candidate: String, anyOf tags: [[UInt8]]) -> Bool {
    func search(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
      tags.contains { tag in contains(name, tag) }
    }
    if let found = candidate.utf8.withContiguousStorageIfAvailable(search) { return found }
    return Array(candidate.utf8).withUnsafeBufferPointer(search)
  }

  private static let tags = [".sync-conflict-", "conflicted copy", "_conflict"].map {
    Array($0.utf8)
  }

  private static func contains(_ name: UnsafeBufferPointer<UInt8>, _ tag: [UInt8]) -> Bool {
    guard !tag.isEmpty, tag.count <= name.count else { return tag.isEmpty }
    for start in 0...(name.count - tag.count)
    where name[start] == tag[0] && name[start..<(start + tag.count)].elementsEqual(tag) {
      return true
    }
    return false
  }

  /// The stem and the extension (with its dot) of a file name; a leading dot is no extension.
  static func split(_ name: String) -> (stem: String, ext: String) {
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
    return (String(name[..<dot]), String(name[dot...]))
  }

  // MARK: - Each engine's tag

  private static func isSyncthing(_ tag: Substring) -> Bool {
    let prefix = ".sync-conflict-"
    guard tag.hasPrefix(prefix) else { return false }
    var rest = tag.dropFirst(prefix.count)
    guard take(digits: 8, from: &rest), take("-", from: &rest), take(digits: 6, from: &rest)
    else { return false }
    if rest.isEmpty { return true }
    // The device: the first seven characters of its ID, in base 32 (A-Z, 2-7).
    guard take("-", from: &rest), rest.count == 7,
      rest.allSatisfy({ ("A"..."Z").contains($0) || ("2"..."7").contains($0) })
    else { return false }
    return true
  }

  private static func isDropbox(_ tag: Substring) -> Bool {
    guard tag.hasPrefix(" ("), tag.hasSuffix(")") else { return false }
    let inner = tag.dropFirst(2).dropLast()
    var rest: Substring
    if inner.hasPrefix("conflicted copy ") {
      rest = inner.dropFirst("conflicted copy ".count)
    } else if let range = inner.range(of: "'s conflicted copy "),
      range.lowerBound > inner.startIndex
    {
      rest = inner[range.upperBound...]
    } else {
      return false
    }
    guard takeDate(from: &rest) else { return false }
    if rest.isEmpty { return true }
    // A second copy the same day: ` (1)`.
    guard take(" (", from: &rest), rest.hasSuffix(")") else { return false }
    let number = rest.dropLast()
    return !number.isEmpty && number.allSatisfy(\.isASCIIDigit)
  }

  private static func isNextcloud(_ tag: Substring) -> Bool {
    let prefix = " (conflicted copy "
    guard tag.hasPrefix(prefix), tag.hasSuffix(")") else { return false }
    // `[USER ]YYYY-MM-DD HHMMSS`: the date and time are the last 17 characters.
    let inner = tag.dropFirst(prefix.count).dropLast()
    guard inner.count >= 17 else { return false }
    var rest = inner.suffix(17)
    let user = inner.dropLast(17)
    guard user.isEmpty || (user.hasSuffix(" ") && user.count > 1) else { return false }
    return takeDate(from: &rest) && take(" ", from: &rest) && take(digits: 6, from: &rest)
      && rest.isEmpty
  }

  private static func isOldOwnCloud(_ tag: Substring) -> Bool {
    // `YYYYMMDD-HHMMSS` last, after `_conflict-` or `_conflict_USER-`.
    guard tag.count >= "_conflict-".count + 15 else { return false }
    var stamp = tag.suffix(15)
    let head = tag.dropLast(15)
    let withUser = head.hasPrefix("_conflict_") && head.hasSuffix("-") && head.count > 11
    guard head == "_conflict-" || withUser else { return false }
    return take(digits: 8, from: &stamp) && take("-", from: &stamp)
      && take(digits: 6, from: &stamp) && stamp.isEmpty
  }

  // MARK: - Scanning

  private static func take(digits count: Int, from rest: inout Substring) -> Bool {
    let head = rest.prefix(count)
    guard head.count == count, head.allSatisfy(\.isASCIIDigit) else { return false }
    rest = rest.dropFirst(count)
    return true
  }

  private static func take(_ literal: String, from rest: inout Substring) -> Bool {
    guard rest.hasPrefix(literal) else { return false }
    rest = rest.dropFirst(literal.count)
    return true
  }

  /// `YYYY-MM-DD`.
  private static func takeDate(from rest: inout Substring) -> Bool {
    take(digits: 4, from: &rest) && take("-", from: &rest) && take(digits: 2, from: &rest)
      && take("-", from: &rest) && take(digits: 2, from: &rest)
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
