import Foundation
import Keepsake
import Observation

/// The "Recently played" screen: a paginated feed, cached on disk so it shows at once next time.
///
/// The feed is kept in `@Shared(.fileStorage(...))`. A new model shows the cached feed straight
/// away; ``load()`` then refreshes it in the background, or loads from scratch when there is
/// nothing to show. The rules it follows when things go wrong:
///
/// - A failure with nothing on screen is ``LoadState/failed(_:)``, with the reason.
/// - A failed background refresh keeps the content on screen (and in the cache), stays
///   ``LoadState/loaded`` and sets ``notice``.
/// - A failure on a later page keeps the visible list and ends pagination quietly:
///   ``hasMore`` becomes `false` and the state stays ``LoadState/loaded``.
/// - A cancelled load (a `CancellationError`, or any error once the task was cancelled) is not
///   a failure: the state goes back to what it was, and nothing half-finished is cached.
///
/// ```swift
/// let model = RecentlyPlayedViewModel(service: service)
/// await model.load()
/// if model.hasMore { await model.loadMore() }
/// ```
///
/// `@MainActor`: it publishes state for SwiftUI.
@MainActor
@Observable
public final class RecentlyPlayedViewModel {
  /// Where the feed is cached unless another file is given.
  ///
  /// That is `Discoverer/recently-played.json` in the user's caches folder. Under test, Keepsake
  /// keeps it in an in-memory file system.
  nonisolated public static var defaultCacheURL: URL {
    let caches =
      FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
      ?? FileManager.default.temporaryDirectory
    return caches.appending(path: "Discoverer/recently-played.json")
  }

  /// Whether the screen is waiting for its first content, shows it, or could not load any.
  public private(set) var state: LoadState = .idle
  /// The tracks on screen, most recent first.
  public private(set) var tracks: [Track] = []
  /// Whether another page can be loaded with ``loadMore()``.
  public private(set) var hasMore = false
  /// Whether ``loadMore()`` is waiting for a page.
  public private(set) var isLoadingMore = false
  /// Whether a refresh is running while content stays on screen.
  public private(set) var isRefreshing = false
  /// Whether the list on screen came from the cache rather than from the service.
  public private(set) var isShowingCachedFeed = false
  /// A message for the listener after a background refresh failed, or `nil`.
  public private(set) var notice: String?

  @ObservationIgnored private let service: any MusicService
  @ObservationIgnored @Shared private var feed: [Track]
  @ObservationIgnored private var nextPage = 1
  /// Bumped by every refresh, so a page that arrives after a newer refresh is dropped instead of
  /// being appended to a list it does not belong to.
  @ObservationIgnored private var generation = 0

  /// Creates the model and shows the cached feed, if there is one.
  ///
  /// - Parameters:
  ///   - service: Where tracks come from.
  ///   - cacheURL: The file the feed is cached in.
  public init(service: any MusicService, cacheURL: URL = RecentlyPlayedViewModel.defaultCacheURL) {
    self.service = service
    self._feed = Shared(wrappedValue: [], .fileStorage(cacheURL))
    let cached = feed
    if !cached.isEmpty {
      tracks = cached
      state = .loaded
      isShowingCachedFeed = true
    }
  }

  /// The feed the cache keeps: the list last loaded completely.
  ///
  /// This is the shared value in memory. It reaches the cache file with the next background
  /// save, so for a moment after a load it can be ahead of the file; when the file could not be
  /// read (``cacheProblem``) it is empty while the file keeps its bytes.
  public var cachedFeed: [Track] { feed }

  /// Why the cache file could not be read, or `nil`.
  ///
  /// Keepsake leaves an unreadable cache untouched on disk (it is never saved over); the model
  /// then starts empty and loads from the service.
  public var cacheProblem: String? { $feed.loadError?.description }

  /// Loads the first page: from scratch when nothing is shown, as a background refresh otherwise.
  ///
  /// Calling it while a load is in flight does nothing.
  public func load() async {
    guard state != .loading, !isRefreshing else { return }
    let previousState = state
    let showsContent = !tracks.isEmpty
    generation += 1
    let generation = generation
    if showsContent { isRefreshing = true } else { state = .loading }
    defer { isRefreshing = false }
    do {
      let page = try await service.fetchRecentlyPlayed(page: 1)
      // NB: a request can answer after its task was cancelled; the answer is dropped, so a
      // cancelled load neither changes the screen nor caches a half-finished feed.
      try Task.checkCancellation()
      guard generation == self.generation else { return }
      tracks = page.items
      hasMore = page.hasMore
      nextPage = page.number + 1
      state = .loaded
      isShowingCachedFeed = false
      notice = nil
      $feed.withLock { $0 = page.items }
    } catch let error where FailureReason.isCancellation(error) {
      state = previousState
    } catch {
      let reason = FailureReason.text(for: error)
      if showsContent {
        // Keep what is on screen: saved tracks beat an error screen.
        notice = "Couldn't refresh recently played. Showing what you saw last time. \(reason)"
      } else {
        state = .failed(reason)
      }
    }
  }

  /// Appends the next page, if there is one and nothing else is loading.
  ///
  /// A failure ends pagination quietly (``hasMore`` becomes `false`) and keeps the list; a
  /// cancellation keeps ``hasMore`` so the listener can try again.
  public func loadMore() async {
    guard state == .loaded, hasMore, !isLoadingMore, !isRefreshing else { return }
    isLoadingMore = true
    defer { isLoadingMore = false }
    let generation = generation
    do {
      let page = try await service.fetchRecentlyPlayed(page: nextPage)
      try Task.checkCancellation()
      guard generation == self.generation else { return }
      tracks += page.items
      hasMore = page.hasMore
      nextPage = page.number + 1
      let shown = tracks
      $feed.withLock { $0 = shown }
    } catch let error where FailureReason.isCancellation(error) {
      return
    } catch {
      // NB: the pages already shown are still good; an error screen would throw them away for
      // a page the listener may never scroll to. So the list stays and pagination just ends.
      hasMore = false
    }
  }

  /// Clears ``notice`` once the listener has seen it.
  public func dismissNotice() {
    notice = nil
  }
}
