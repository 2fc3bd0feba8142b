import Foundation

/// The earlier versions a version of a file in a synced folder descends from, as the file's
/// envelope carries them: `"ancestry": {"by": "K3PZ7QX", "versions": ["12.9f86d081884c.K3PZ7QX",
/// ...]}`.
///
/// Two devices that changed a file while apart each hold only their own history; the merge base
/// of the engine's conflict copy and the file is their newest *common* version, and only history
/// that travels with the file can name it (see "Devices" in the Data safety article). Each entry
/// names one version by its generation (one more than its newest parent's), the first 12 hex
/// digits of the SHA-256 of its bytes, and the device that wrote it.
///
/// The list is bounded, and the same function of its parents on every device:
/// - every version of the last ``recentWindow`` generations, so that a recent version a list
///   does not name is one its version does not descend from;
/// - the newest version written by each device (so the version a device last received from
///   another one stays listed however long it then works alone);
/// - further back, two versions per doubling of the distance, at generations aligned to it, so
///   two lists that both reach that far keep the same ones.
///
/// A version written by a merge of a conflict copy is written by ``mergeWriter``: every device
/// that resolves the same copy writes the same bytes, and the engine sees no new conflict.
///
/// A version that took in a change an older version of the app kept beside the file lists that
/// change too, as an entry of ``keptChangeWriter`` (the hash of the kept file's bytes, at its
/// parent's generation): two devices that each took in the same kept change, apart, then merge
/// from a base that has it (see `SyncResolver+Base.swift`), so what a later change undid of it
/// stays undone. It also carries what such a change deleted (see ``Deletions``), while the change
/// is listed in the recent window: the device that took the change in may be the only one that
/// ever held it.
struct Ancestry: Equatable, Sendable {
  /// One earlier version.
  struct Entry: Hashable, Sendable {
    var generation: Int
    /// The first 12 hex digits of the SHA-256 of the version's bytes.
    var hash: String
    /// The device that wrote it, ``mergeWriter``, or ``unknownWriter``.
    var device: String

    var text: String { "\(generation).\(hash).\(device)" }

    /// Whether the entry names a kept change taken in, not a version of the file.
    var isKeptChange: Bool { device == Ancestry.keptChangeWriter }

    /// Newest first; then by hash, so that every device orders equal generations alike.
    static func newerFirst(_ a: Entry, _ b: Entry) -> Bool {
      if a.generation != b.generation { return a.generation > b.generation }
      if a.hash != b.hash { return a.hash < b.hash }
      return a.device < b.device
    }
  }

  /// What a kept change a version took in deleted (see `FieldMerge.deletions(from:to:)`).
  ///
  /// An older version of the app keeps its change beside the file; a device may take it in and
  /// remove it before any other device received it. Where the change deleted an element the
  /// line taking it in no longer held, it changed nothing there, and another line that still
  /// holds the element, merged against a common version that lacks it, would bring it back. The
  /// versions that list the change carry its deletions, so a device that never held it replays
  /// them as the one that did (see `SyncResolver.removingOneSidedDeletions`).
  struct Deletions: Equatable, Sendable {
    /// The hash that names the kept change in ``versions`` (``keptChangeWriter``).
    var change: String
    /// A tree of deletions per step of the change that deleted something, in order.
    var steps: [JSONValue]

    /// The trees as JSON, as the envelope carries them.
    var encoded: Data { JSONValue.array(steps).jsonData() }
  }

  /// The device that wrote the version.
  var writer: String
  /// Its earlier versions, newest first.
  var versions: [Entry]
  /// The deletions of the kept changes it lists in its recent window, oldest change first.
  var deletions: [Deletions] = []

  /// How many generations back every version is listed.
  static let recentWindow = 64
  /// At most this many devices keep their newest version listed.
  static let pinnedDevices = 8
  /// The most entries kept beyond the recent window and the pinned versions: aligned ones.
  static let alignedEntries = 24
  /// The writer of a merge of a conflict copy, the same on every device.
  static let mergeWriter = "merge"
  /// The writer of a version that carried no ancestry (a plain file, an older Keepsake).
  static let unknownWriter = "unknown"
  /// The "writer" of an entry that names a kept change a version took in.
  ///
  /// NB: in the alphabet of device IDs, and shorter than any: a build that does not know it
  /// reads it as a device's version it does not hold, and merges as without it (it waits, then
  /// takes an older common version), rather than dropping the whole ancestry.
  static let keptChangeWriter = "KEPT"
  /// The most bytes of trees a kept change's ``Deletions`` may take; a change that deleted more
  /// is not carried (devices that never held it merge as without it).
  static let deletionsLimit = 16 * 1024

  /// The generation of the version that carries this ancestry.
  var generation: Int { (versions.map(\.generation).max() ?? 0) + 1 }

  /// The ancestry of a new version written by `writer` over `parent` (`nil` for no file).
  ///
  /// `takingIn`: the hash of the kept change (its file's bytes) the new version merged;
  /// `deleting`: what it deleted (see ``Deletions``).
  static func child(
    of parent: FileVersion?, writer: String, takingIn keptChange: String? = nil,
    deleting: [JSONValue] = []
  ) -> Ancestry {
    guard let parent else { return Ancestry(writer: writer, versions: []) }
    var candidates = parent.lineage
    var deletions = parent.ancestry?.deletions ?? []
    if let keptChange {
      candidates.append(
        Entry(generation: parent.entry.generation, hash: keptChange, device: keptChangeWriter))
      let taken = Deletions(change: keptChange, steps: deleting)
      if !deleting.isEmpty && taken.encoded.count <= deletionsLimit { deletions.append(taken) }
    }
    let generation = parent.entry.generation + 1
    let versions = thin(candidates, generation: generation)
    return Ancestry(
      writer: writer, versions: versions,
      deletions: carried(deletions, by: versions, generation: generation))
  }

  /// The ancestry of the merge of `file` and `copy`, which every device computes alike.
  static func merge(of file: FileVersion, and copy: FileVersion) -> Ancestry {
    let generation = max(file.entry.generation, copy.entry.generation) + 1
    let versions = thin(file.lineage + copy.lineage, generation: generation)
    let deletions = (file.ancestry?.deletions ?? []) + (copy.ancestry?.deletions ?? [])
    return Ancestry(
      writer: mergeWriter, versions: versions,
      deletions: carried(deletions, by: versions, generation: generation))
  }

  /// The deletions a version of `generation` listing `versions` carries: those of the kept
  /// changes it lists in its recent window, once each, oldest change first (then by hash), the
  /// same on every device.
  private static func carried(
    _ deletions: [Deletions], by versions: [Entry], generation: Int
  ) -> [Deletions] {
    guard !deletions.isEmpty else { return [] }
    var listed: [String: Int] = [:]
    for entry in versions where entry.isKeptChange && generation - entry.generation <= recentWindow
    {
      listed[entry.hash] = max(listed[entry.hash] ?? 0, entry.generation)
    }
    var unique: [String: Deletions] = [:]
    for item in deletions where listed[item.change] != nil {
      // NB: two builds could make different trees of one change; the smaller is kept, alike
      // whichever side brings it.
      if let known = unique[item.change],
        !item.encoded.lexicographicallyPrecedes(known.encoded)
      {
        continue
      }
      unique[item.change] = item
    }
    return unique.values.sorted { a, b in
      let (first, second) = (listed[a.change] ?? 0, listed[b.change] ?? 0)
      return first != second ? first < second : a.change < b.change
    }
  }

  /// The entries a version of `generation` keeps of `candidates` (see the type's rules).
  private static func thin(_ candidates: [Entry], generation: Int) -> [Entry] {
    var unique: [String: Entry] = [:]
    for entry in candidates where entry.generation < generation {
      if let known = unique[entry.hash], !Entry.newerFirst(entry, known) { continue }
      unique[entry.hash] = entry
    }
    let sorted = unique.values.sorted(by: Entry.newerFirst)
    var newestByDevice: [String: Entry] = [:]
    for entry in sorted where newestByDevice[entry.device] == nil && !entry.isKeptChange {
      newestByDevice[entry.device] = entry
    }
    let pinned = Set(
      newestByDevice.values.sorted(by: Entry.newerFirst).prefix(pinnedDevices).map(\.hash))
    var kept: [Entry] = []
    var aligned: [Entry] = []
    for entry in sorted {
      let distance = generation - entry.generation
      if distance <= recentWindow || pinned.contains(entry.hash) {
        kept.append(entry)
      } else if entry.generation % alignment(forDistance: distance) == 0 {
        aligned.append(entry)
      }
    }
    // NB: neither the recent window nor the pinned versions are ever cut: a recent version a
    // list does not name is one the version does not descend from (the merge of overwritten
    // saves relies on it), and the pinned and aligned ones are what keeps two long branches
    // connected. Many devices merging busily fill the window with concurrent versions; the
    // bound then keeps the newest aligned ones only.
    return (kept + aligned.prefix(alignedEntries)).sorted(by: Entry.newerFirst)
  }

  /// Two entries per doubling of the distance: `[32, 64)` keeps generations divisible by 16,
  /// `[64, 128)` by 32, and so on.
  private static func alignment(forDistance distance: Int) -> Int {
    let octave = Int.bitWidth - distance.leadingZeroBitCount - 1
    return 1 << max(0, octave - 1)
  }
}

/// One version of a file: the hash of its bytes and the ancestry they carry, if any.
struct FileVersion: Equatable, Sendable {
  /// The first 12 hex digits of the SHA-256 of the bytes.
  var hash: String
  /// What the bytes carry; `nil` for a plain file or one written outside a synced folder.
  var ancestry: Ancestry?

  /// The version of `data`, reading its ancestry when `readsAncestry` (versioned formats only:
  /// a plain JSON object may have a key of that name of its own).
  init(_ data: Data, readsAncestry: Bool) {
    hash = Self.hash(of: data)
    ancestry = readsAncestry ? Ancestry(parsing: data) : nil
  }

  init(hash: String, ancestry: Ancestry?) {
    self.hash = hash
    self.ancestry = ancestry
  }

  /// This version as an entry of its descendants' ancestry.
  var entry: Ancestry.Entry {
    Ancestry.Entry(
      generation: ancestry?.generation ?? 1, hash: hash,
      device: ancestry?.writer ?? Ancestry.unknownWriter)
  }

  /// This version and every earlier one it lists, newest first.
  var lineage: [Ancestry.Entry] { [entry] + (ancestry?.versions ?? []) }

  /// The newest version of each device this version lists: the likeliest merge bases of its
  /// next conflict (the version a device last received from each other one), which the store
  /// keeps beyond its bounds.
  var newestOfEachDevice: Set<String> {
    var newest: [String: Ancestry.Entry] = [:]
    for entry in ancestry?.versions ?? [] {
      if let known = newest[entry.device], !Ancestry.Entry.newerFirst(entry, known) { continue }
      newest[entry.device] = entry
    }
    return Set(newest.values.map(\.hash))
  }

  /// Whether this version is `other` or lists it among its earlier versions.
  func includes(_ hash: String) -> Bool {
    self.hash == hash || (ancestry?.versions.contains { $0.hash == hash } ?? false)
  }

  /// The versions both lineages list, newest first: the candidates for a merge base, the
  /// same on every device.
  func commonVersions(with other: FileVersion) -> [Ancestry.Entry] {
    let mine = Set(lineage.map(\.hash))
    return other.lineage.filter { mine.contains($0.hash) }.sorted(by: Ancestry.Entry.newerFirst)
  }

  /// The first 12 hex digits of the SHA-256 of `data`.
  static func hash(of data: Data) -> String {
    String(SHA256.hexDigest(of: data).prefix(12))
  }
}
