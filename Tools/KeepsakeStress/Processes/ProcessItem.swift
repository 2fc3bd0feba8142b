import Foundation

/// The item the processes campaign's children add to the shared file: its identifier names the
/// process and the item, so the final file tells which ones are missing or doubled.
///
/// NB: as small as an `Identifiable` value gets (`{"id":"3.117"}`), because every transaction
/// rewrites the whole file: the campaign measures the cross-process protocol, not the encoder.
public struct ProcessItem: Codable, Identifiable, Equatable, Hashable, Sendable {
  /// `<process>.<index>`.
  public var id: String

  /// The `index`th item of process `process`.
  public init(process: Int, index: Int) {
    self.id = "\(process).\(index)"
  }
}

/// The same items wrapped in a struct that is not ``SharedMergeable``: the deliberately broken
/// writer of the campaign's own tests saves it with `withLock` and `save()`, so a save that finds
/// another process's change keeps both versions (a conflict copy) instead of merging, and the
/// file itself loses that process's items.
public struct UnmergeableItems: Codable, Equatable, Sendable {
  /// The items, in the order they were added.
  public var items: [ProcessItem] = []

  /// No items.
  public init() {}
}

extension ProcessItem {
  /// Every item `processes` processes adding `count` items each add.
  static func expected(processes: Int, count: Int) -> Set<String> {
    var ids = Set<String>(minimumCapacity: processes * count)
    for process in 0..<processes {
      for index in 0..<count { ids.insert(ProcessItem(process: process, index: index).id) }
    }
    return ids
  }

  /// The items in `data`, the bytes of the shared file or of a conflict copy, in either shape.
  static func decodeAny(_ data: Data) -> [ProcessItem]? {
    let decoder = JSONDecoder()
    if let items = try? decoder.decode([ProcessItem].self, from: data) { return items }
    return (try? decoder.decode(UnmergeableItems.self, from: data))?.items
  }
}
