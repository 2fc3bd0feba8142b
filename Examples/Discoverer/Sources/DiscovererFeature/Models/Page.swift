/// One page of a longer, paginated list, and whether the service has more after it.
///
/// Pages are numbered from 1. Nonisolated so pages can be built and decoded off the main actor.
///
/// ```swift
/// let page = try await service.fetchRecentlyPlayed(page: 1)
/// if page.hasMore { /* offer "Load more" */ }
/// ```
nonisolated public struct Page<Item: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
  /// The page's number, from 1.
  public var number: Int
  /// The items on this page, in order.
  public var items: [Item]
  /// Whether a page `number + 1` exists.
  public var hasMore: Bool

  /// Creates a page.
  public init(number: Int, items: [Item], hasMore: Bool) {
    self.number = number
    self.items = items
    self.hasMore = hasMore
  }
}
