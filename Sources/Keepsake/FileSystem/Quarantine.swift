import Foundation

/// Where damaged files are set aside before they are replaced (data-safety rule "A damaged file is
/// preserved before anything replaces it"; see the Data safety article), where another
/// process's version is kept when it conflicts with ours (rule "Processes that share a file lose
/// nothing"), and where `keepsake restore` keeps the file it replaces.
///
/// `drafts.json` becomes `drafts.quarantined-20261129T210300Z.json` (a damaged file),
/// `drafts.conflict-20261129T210300Z.json` (the other side of a conflict),
/// `drafts.kept-20261129T210300Z.json` (the file a restore replaced) or
/// `drafts.unsaved-20261129T210300Z.json` (a change the file could not take) in the same folder:
/// next to the file, sorted by time, with the original extension so it opens like the original.
/// A second copy in the same second gets `-2`, `-3`, .... ``KeptCopy`` is how the rest of the
/// package and apps see them (`keepsake quarantined` lists them, `keepsake restore` puts one
/// back).
///
/// A name too long to take the marker and the time within the file system's limit keeps its
/// start and a digest instead (see `FileName`): such a copy is still recognised, and matched to
/// its file by the digest.
enum Quarantine {
  /// The marker in a quarantine copy's name.
  static let marker = ".quarantined-"
  /// The marker in a conflict copy's name.
  static let conflictMarker = ".conflict-"
  /// The marker in the name of the file `keepsake restore` replaced: kept, not damaged.
  static let keptMarker = ".kept-"
  /// The marker in the name of a change that could not be written into its file (the file
  /// unreadable, from a newer version, or its folder gone): kept as soon as the save was
  /// refused, and merged into the file by the next process that can.
  static let unsavedMarker = ".unsaved-"

  /// How many conflict copies of one file are kept: when another one is made, the oldest copy
  /// and the newest ones stay, and those in between are removed (and the app told).
  static let conflictCopyLimit = 10

  private static let markers = [marker, conflictMarker, keptMarker, unsavedMarker]
  private static let markerBytes = markers.map { Array($0.utf8) }
  /// The length of a copy's time, `20261129T210300Z`.
  private static let stampLength = 16
  /// An extension longer than this is taken as part of the name.
  private static let longestExtension = 16

  /// A copy's name, taken apart.
  struct CopyName: Equatable, Sendable {
    /// What stands for the original's name without its extension (shortened, for a long name).
    var stem: String
    /// ``Quarantine/marker``, ``Quarantine/conflictMarker``, ``Quarantine/keptMarker`` or
    /// ``Quarantine/unsavedMarker``.
    var marker: String
    /// The UTC time, to the second: `20261129T210300Z`.
    var stamp: String
    /// 1 for the first copy of its second, then 2, 3, ....
    var counter: Int
    /// The original's extension, or an empty string.
    var ext: String

    /// The name of the original file, unless it was shortened to fit.
    var plainOriginal: String { ext.isEmpty ? stem : "\(stem).\(ext)" }
  }

  /// `names` in the order their copies were made: by the time in a copy's name, then its
  /// counter within that second; other names last, by name.
  ///
  /// NB: not by name alone: the second copy of a second (`-2`) sorts before the first.
  static func oldestFirst(_ names: [String]) -> [String] {
    names.map { (name: $0, copy: parse($0)) }.sorted { a, b in
      switch (a.copy, b.copy) {
      case (let x?, let y?):
        return (x.stamp, x.counter, a.name) < (y.stamp, y.counter, b.name)
      case (.some, nil): return true
      case (nil, .some): return false
      case (nil, nil): return a.name < b.name
      }
    }.map(\.name)
  }

  /// Whether `name` is the name of a quarantine, conflict or kept copy.
  static func isCopy(named name: String) -> Bool { parse(name) != nil }

  /// Whether `name` is the name of a copy with `marker` of the file named `original`.
  static func isCopy(named name: String, of original: String, marker: String) -> Bool {
    guard let copy = parse(name), copy.marker == marker else { return false }
    let (stem, ext) = parts(of: original)
    return copy.ext == ext && copy.stem == stem
  }

  /// Whether `name` is the name of a copy (of any kind) of the file named `original`.
  static func isCopy(named name: String, of original: String) -> Bool {
    guard let copy = parse(name) else { return false }
    let (stem, ext) = parts(of: original)
    return copy.ext == ext && copy.stem == stem
  }

  /// A new copy's name for `url` at `date`, not among `existingNames`.
  ///
  /// - Parameters:
  ///   - url: The file the copy is of.
  ///   - date: When the copy is made; its UTC time, to the second, is in the name.
  ///   - existingNames: The names already in the folder; a counter keeps the new one apart.
  ///   - marker: ``marker`` for a damaged file, ``conflictMarker`` for a conflict copy,
  ///     ``keptMarker`` for a file a restore replaced.
  static func url(
    for url: URL, at date: Date = Date(), existingNames: Set<String> = [],
    marker: String = Quarantine.marker
  ) -> URL {
    let folder = url.deletingLastPathComponent()
    let (stem, ext) = parts(of: url.lastPathComponent)
    let stamp = timestamp(date)
    // NB: after the newest copy of this second, never in a gap a removed copy left: names must
    // sort in the order the copies were made, for the oldest and newest to be told apart.
    var counter =
      existingNames.compactMap(parse).filter {
        $0.stem == stem && $0.ext == ext && $0.marker == marker && $0.stamp == stamp
      }.map(\.counter).max().map { $0 + 1 } ?? 1
    while true {
      let name = CopyName(stem: stem, marker: marker, stamp: stamp, counter: counter, ext: ext)
      let text = format(name)
      if !existingNames.contains(text) { return folder.appendingPathComponent(text) }
      counter += 1
    }
  }

  /// The file a copy was taken from, or `nil` when `url` is not a copy.
  ///
  /// For a copy of a name that was shortened to fit, this is the shortened name; use
  /// ``originalURL(of:among:)`` with the folder's names to find the file itself.
  static func originalURL(of url: URL) -> URL? {
    guard let copy = parse(url.lastPathComponent) else { return nil }
    return url.deletingLastPathComponent().appendingPathComponent(copy.plainOriginal)
  }

  /// The file a copy was taken from, found among `names` (the names in its folder) when its
  /// name was shortened; `nil` when `url` is not a copy, or is a copy of a shortened name that is
  /// not among `names`.
  static func originalURL(of url: URL, among names: some Sequence<String>) -> URL? {
    let copyName = url.lastPathComponent
    guard let copy = parse(copyName) else { return nil }
    let folder = url.deletingLastPathComponent()
    let names = Array(names)
    if names.contains(copy.plainOriginal) {
      return folder.appendingPathComponent(copy.plainOriginal)
    }
    if let original = names.first(where: { !isCopy(named: $0) && isCopy(named: copyName, of: $0) })
    {
      return folder.appendingPathComponent(original)
    }
    return FileName.looksShortened(Substring(copy.stem))
      ? nil : folder.appendingPathComponent(copy.plainOriginal)
  }

  /// The copies of the file named `original` among `names` with `marker`, oldest first.
  static func copies(
    of original: String, among names: some Sequence<String>, marker: String
  ) -> [String] {
    let (stem, ext) = parts(of: original)
    let found = names.compactMap { name -> (String, CopyName)? in
      guard let copy = parse(name), copy.marker == marker, copy.stem == stem, copy.ext == ext
      else { return nil }
      return (name, copy)
    }
    return found.sorted { ($0.1.stamp, $0.1.counter) < ($1.1.stamp, $1.1.counter) }.map(\.0)
  }

  /// `name` taken apart, or `nil` when it is not a copy's name.
  ///
  /// The first marker followed by a time is the one: a name may hold a marker's text before it
  /// (`notes.kept-old.conflict-20261129T210300Z.json` is a conflict copy of `notes.kept-old.json`).
  static func parse(_ name: String) -> CopyName? {
    // NB: a byte search first: every name of a folder is parsed when its first key opens, and
    // Foundation's search of a string is costly on Linux.
    guard ConflictCopyName.contains(name, anyOf: markerBytes) else { return nil }
    var found: [(Range<String.Index>, String)] = []
    for marker in markers {
      var start = name.startIndex
      while let range = name.range(of: marker, range: start..<name.endIndex) {
        found.append((range, marker))
        start = name.index(after: range.lowerBound)
      }
    }
    found.sort { $0.0.lowerBound < $1.0.lowerBound }
    for (range, marker) in found {
      if let copy = parse(name, at: range, marker: marker) { return copy }
    }
    return nil
  }

  private static func parse(
    _ name: String, at range: Range<String.Index>, marker: String
  ) -> CopyName? {
    let stem = String(name[..<range.lowerBound])
    let rest = name[range.upperBound...]
    guard !stem.isEmpty, rest.utf8.count >= stampLength else { return nil }
    let stamp = String(rest.prefix(stampLength))
    guard isStamp(stamp) else { return nil }
    var tail = rest.dropFirst(stampLength)
    var counter = 1
    if tail.first == "-" {
      let digits = tail.dropFirst().prefix(while: \.isASCIIDigit)
      guard let number = Int(digits), number > 1 else { return nil }
      counter = number
      tail = tail.dropFirst(1 + digits.count)
    }
    guard tail.isEmpty || tail.first == "." else { return nil }
    return CopyName(
      stem: stem, marker: marker, stamp: stamp, counter: counter, ext: String(tail.dropFirst()))
  }

  /// What stands for a file named `name` in its copies' names: the name without its extension
  /// (shortened so every copy's name fits), and the extension.
  ///
  /// NB: copies' names are kept within `TemporaryFile.nameBudget`, not the file system's whole
  /// limit, so a copy's own temporary file can carry its name whole and be recognised as the
  /// file's.
  private static func parts(of name: String) -> (stem: String, ext: String) {
    var stem = name
    var ext = ""
    if let dot = name.lastIndex(of: "."), dot != name.startIndex {
      let candidate = name[name.index(after: dot)...]
      if !candidate.isEmpty, candidate.utf8.count <= longestExtension {
        stem = String(name[..<dot])
        ext = String(candidate)
      }
    }
    // The longest marker, the time and a counter of up to five digits with its dash.
    let reserved =
      marker.utf8.count + stampLength + 6 + (ext.isEmpty ? 0 : 1 + ext.utf8.count)
    return (FileName.fitting(stem, within: TemporaryFile.nameBudget - reserved), ext)
  }

  private static func format(_ copy: CopyName) -> String {
    let counter = copy.counter == 1 ? "" : "-\(copy.counter)"
    return "\(copy.stem)\(copy.marker)\(copy.stamp)\(counter)"
      + (copy.ext.isEmpty ? "" : ".\(copy.ext)")
  }

  /// Whether `text` has the shape of a copy's time, `20261129T210300Z`.
  private static func isStamp(_ text: String) -> Bool {
    let characters = Array(text)
    guard characters.count == stampLength, characters[8] == "T", characters[15] == "Z" else {
      return false
    }
    return (characters[0..<8] + characters[9..<15]).allSatisfy(\.isASCIIDigit)
  }

  private static func timestamp(_ date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    func pad(_ value: Int?, _ width: Int) -> String {
      let text = String(value ?? 0)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(c.year, 4))\(pad(c.month, 2))\(pad(c.day, 2))T"
      + "\(pad(c.hour, 2))\(pad(c.minute, 2))\(pad(c.second, 2))Z"
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
