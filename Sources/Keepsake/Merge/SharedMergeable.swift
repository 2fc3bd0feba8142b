/// A value that knows how to merge two changes of itself (see ``SharedMerge``).
///
/// Arrays of `Identifiable & Equatable` elements and dictionaries of `Equatable` values conform
/// already. Conform your own value when it has a meaningful merge: a counter adds both
/// increments, a set takes both insertions, a document merges its fields.
public protocol SharedMergeable {
  /// Merges `ours` and `theirs`, both changed from `base`.
  static func merge(base: Self, ours: Self, theirs: Self) -> SharedMergeResult<Self>
}

extension Array: SharedMergeable where Element: Identifiable & Equatable {
  /// Merges by element identity: inserts and deletions of both sides are kept; an element
  /// changed on both sides keeps ours, and is reported as a conflict.
  public static func merge(base: Self, ours: Self, theirs: Self) -> SharedMergeResult<Self> {
    IdentifiedMerge.merge(base: base, ours: ours, theirs: theirs, preferring: .ours)
  }
}

extension Dictionary: SharedMergeable where Value: Equatable {
  /// Merges by key: keys added or removed on either side are kept added or removed; a key
  /// changed on both sides keeps ours, and is reported as a conflict.
  public static func merge(base: Self, ours: Self, theirs: Self) -> SharedMergeResult<Self> {
    KeyedMerge.merge(base: base, ours: ours, theirs: theirs, preferring: .ours)
  }
}

extension SharedMerge {
  /// Merges an array by element identity, with `preference` deciding elements changed on both
  /// sides.
  ///
  /// Inserts and deletions of both sides are kept. An element changed on one side and deleted
  /// on the other is kept, changed: a deletion never silently drops an edit. The order is ours,
  /// with their inserts placed after the element that precedes them in theirs.
  public static func byID<Element: Identifiable & Equatable & Sendable>(
    preferring preference: MergePreference = .ours
  ) -> SharedMerge where Value == [Element] {
    SharedMerge { base, ours, theirs in
      IdentifiedMerge.merge(base: base, ours: ours, theirs: theirs, preferring: preference)
    }
  }

  /// Merges a dictionary by key, with `preference` deciding keys changed on both sides.
  ///
  /// A key changed on one side and removed on the other is kept, changed.
  public static func byKey<Key: Hashable & Sendable, Element: Equatable & Sendable>(
    preferring preference: MergePreference = .ours
  ) -> SharedMerge where Value == [Key: Element] {
    SharedMerge { base, ours, theirs in
      KeyedMerge.merge(base: base, ours: ours, theirs: theirs, preferring: preference)
    }
  }
}

/// The three-way merge of arrays of identified elements.
enum IdentifiedMerge {
  static func merge<Element: Identifiable & Equatable>(
    base: [Element], ours: [Element], theirs: [Element], preferring preference: MergePreference
  ) -> SharedMergeResult<[Element]> {
    let baseByID = index(base)
    let theirsByID = index(theirs)
    let oursByID = index(ours)
    var conflicts: [String] = []
    var merged: [Element] = []
    merged.reserveCapacity(max(ours.count, theirs.count))
    for element in ours {
      let id = element.id
      let original = baseByID[id]
      guard let their = theirsByID[id] else {
        // Not in theirs: ours inserted it, or they deleted it. A deletion wins only over an
        // element we left unchanged.
        if let original, original == element { continue }
        if original != nil { conflicts.append(String(describing: id)) }
        merged.append(element)
        continue
      }
      if their == element || their == original {
        merged.append(element)
      } else if element == original {
        merged.append(their)
      } else {
        conflicts.append(String(describing: id))
        merged.append(preference == .ours ? element : their)
      }
    }
    // Their inserts, and elements we deleted that they changed, after their predecessor.
    var positions: [Element.ID: Int] = [:]
    for (offset, element) in merged.enumerated() { positions[element.id] = offset }
    var insertions: [(after: Element.ID?, element: Element)] = []
    var previous: Element.ID?
    for element in theirs {
      let id = element.id
      defer { previous = id }
      if oursByID[id] != nil { continue }
      if let original = baseByID[id] {
        // We deleted it; keep it only if they changed it meanwhile.
        if original == element { continue }
        conflicts.append(String(describing: id))
      }
      insertions.append((previous, element))
    }
    guard !insertions.isEmpty else { return SharedMergeResult(value: merged, conflicts: conflicts) }
    var result: [Element] = []
    result.reserveCapacity(merged.count + insertions.count)
    var after: [Element.ID: [Element]] = [:]
    var atStart: [Element] = []
    var atEnd: [Element] = []
    var inserted: Set<Element.ID> = []
    for insertion in insertions {
      // An insertion whose predecessor is itself inserted follows it; one whose predecessor is
      // gone from ours goes to the end.
      if let anchor = insertion.after {
        if positions[anchor] != nil || inserted.contains(anchor) {
          after[anchor, default: []].append(insertion.element)
        } else {
          atEnd.append(insertion.element)
        }
      } else {
        atStart.append(insertion.element)
      }
      inserted.insert(insertion.element.id)
    }
    func append(_ element: Element) {
      result.append(element)
      for follower in after[element.id] ?? [] { append(follower) }
    }
    for element in atStart { append(element) }
    for element in merged { append(element) }
    for element in atEnd { append(element) }
    return SharedMergeResult(value: result, conflicts: conflicts)
  }

  private static func index<Element: Identifiable>(_ elements: [Element]) -> [Element.ID: Element] {
    var byID: [Element.ID: Element] = [:]
    byID.reserveCapacity(elements.count)
    for element in elements { byID[element.id] = element }
    return byID
  }
}

/// The three-way merge of dictionaries.
enum KeyedMerge {
  static func merge<Key: Hashable, Element: Equatable>(
    base: [Key: Element], ours: [Key: Element], theirs: [Key: Element],
    preferring preference: MergePreference
  ) -> SharedMergeResult<[Key: Element]> {
    var merged = ours
    var conflicts: [String] = []
    for key in Set(base.keys).union(theirs.keys) {
      let original = base[key]
      let mine = ours[key]
      let their = theirs[key]
      if their == original || their == mine { continue }
      if mine == original {
        // Only they changed it (or removed it).
        merged[key] = their
        continue
      }
      conflicts.append(String(describing: key))
      if their == nil || mine == nil {
        // Changed on one side, removed on the other: keep the change.
        merged[key] = mine ?? their
      } else {
        merged[key] = preference == .ours ? mine : their
      }
    }
    return SharedMergeResult(value: merged, conflicts: conflicts.sorted())
  }
}
