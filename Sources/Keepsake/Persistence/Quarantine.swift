import Foundation

/// Where damaged files are set aside before they are replaced (data-safety rule "A damaged file is
/// preserved before anything replaces it"; see the Data safety article), and where another
/// process's version is kept when it conflicts with ours (rule "Processes that share a file lose
/// nothing").
///
/// `drafts.json` becomes `drafts.quarantined-20261129T210300Z.json` (a damaged file) or
/// `drafts.conflict-20261129T210300Z.json` (the other side of a conflict) in the same folder:
/// next to the file, sorted by time, with the original extension so it opens like the original.
/// `keepsake quarantined` lists both kinds, and `keepsake restore` puts either back.
package enum Quarantine {
  /// The marker in a quarantine copy's name.
  package static let marker = ".quarantined-"
  /// The marker in a conflict copy's name.
  package static let conflictMarker = ".conflict-"

  /// Whether `name` is the name of a quarantine or conflict copy.
  package static func isCopy(named name: String) -> Bool {
    name.contains(marker) || name.contains(conflictMarker)
  }

  /// A new quarantine name for `url` at `date`, not among `existingNames`.
  ///
  /// - Parameters:
  ///   - url: The file the copy is of.
  ///   - date: When the copy is made; its UTC time, to the second, is in the name.
  ///   - existingNames: The names already in the folder; a counter keeps the new one apart.
  ///   - marker: ``marker`` for a damaged file, ``conflictMarker`` for a conflict copy.
  package static func url(
    for url: URL, at date: Date = Date(), existingNames: Set<String> = [],
    marker: String = Quarantine.marker
  ) -> URL {
    let folder = url.deletingLastPathComponent()
    let ext = url.pathExtension
    let stem = ext.isEmpty ? url.lastPathComponent : url.deletingPathExtension().lastPathComponent
    let stamp = timestamp(date)
    var counter = 1
    while true {
      let suffix = counter == 1 ? "" : "-\(counter)"
      let name = "\(stem)\(marker)\(stamp)\(suffix)" + (ext.isEmpty ? "" : ".\(ext)")
      if !existingNames.contains(name) { return folder.appendingPathComponent(name) }
      counter += 1
    }
  }

  /// The file a quarantine copy was taken from, or `nil` when `url` is not a quarantine copy.
  package static func originalURL(of url: URL) -> URL? {
    let name = url.lastPathComponent
    guard let range = name.range(of: marker) ?? name.range(of: conflictMarker) else { return nil }
    let stem = name[..<range.lowerBound]
    let rest = name[range.upperBound...]
    guard !stem.isEmpty else { return nil }
    let ext = rest.split(separator: ".", maxSplits: 1).dropFirst().first.map(String.init)
    let original = ext.map { "\(stem).\($0)" } ?? String(stem)
    return url.deletingLastPathComponent().appendingPathComponent(original)
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
