import DiscovererFeature
import FaultInjection
import Foundation
import Keepsake
import KeepsakeTesting
import Testing

/// `RecentlyPlayedViewModel` under every fault its service can show.
///
/// NB: one file on purpose (past ~300 lines): one suite per source file, and the view model is
/// one state machine (loading, pages, failures, cancellation, background refresh) whose tests
/// share the service and the cache helpers at the top of the suite; the sections are marked.
@MainActor
@Suite("RecentlyPlayedViewModel", .timeLimit(.minutes(5)))
struct RecentlyPlayedViewModelTests {
  let service: MockMusicService

  init() throws {
    service = try makeService()
  }

  func makeModel() -> RecentlyPlayedViewModel {
    RecentlyPlayedViewModel(service: service, cacheURL: feedURL)
  }

  /// Puts `tracks` in the feed cache, as a previous run of the app would have.
  func seedCache(_ tracks: [Track]) {
    @Shared(.fileStorage(feedURL)) var feed: [Track] = []
    $feed.withLock { $0 = tracks }
  }

  /// The feed cache as it is on the test's disk, once pending saves are written: the bytes,
  /// not the in-memory value the model shares.
  func storedCache() async throws -> [Track] {
    let feed = Shared(.fileStorage(feedURL), default: [Track]())
    try await feed.flush()
    let disk = try #require(TestDisk(feed.storageContext))
    guard let data = disk.contents(of: feedURL) else { return [] }
    return try JSONDecoder().decode([Track].self, from: data)
  }

  var pagesRequested: [Int] {
    service.faults.calls(to: .fetchRecentlyPlayed).compactMap { $0.arguments(as: Int.self) }
  }

  // MARK: - Happy paths

  @Test("The first page shows ten tracks, offers more and is cached")
  func firstPage() async throws {
    let model = makeModel()
    await model.load()
    #expect(model.state == .loaded)
    #expect(model.tracks == Array(service.catalogue.tracks.prefix(10)))
    #expect(model.hasMore)
    #expect(model.cachedFeed == model.tracks)
    #expect(try await storedCache() == model.tracks)
    #expect(!model.isShowingCachedFeed)
  }

  @Test("Loading more pages appends them in order until the last one ends pagination")
  func paginatesToTheEnd() async throws {
    let model = makeModel()
    await model.load()
    while model.hasMore { await model.loadMore() }
    #expect(model.tracks == service.catalogue.tracks)
    #expect(pagesRequested == [1, 2, 3, 4])
    #expect(model.state == .loaded)
    #expect(try await storedCache().count == 40)
  }

  @Test("A cached feed is on screen before anything is requested")
  func showsCachedFeedAtOnce() {
    let saved = Array(service.catalogue.tracks.suffix(5))
    seedCache(saved)
    let model = makeModel()
    #expect(model.state == .loaded)
    #expect(model.tracks == saved)
    #expect(model.isShowingCachedFeed)
    #expect(!model.hasMore)
    #expect(service.faults.log.isEmpty)
  }

  @Test("A successful refresh replaces the cached feed on screen and on disk")
  func refreshReplacesCache() async throws {
    seedCache(Array(service.catalogue.tracks.suffix(5)))
    let model = makeModel()
    await model.load()
    #expect(model.tracks == Array(service.catalogue.tracks.prefix(10)))
    #expect(try await storedCache() == model.tracks)
    #expect(!model.isShowingCachedFeed)
    #expect(model.notice == nil)
  }

  @Test("The state is loading while the first page is in flight")
  func loadingWhileInFlight() async throws {
    let gate = service.faults.gate(.fetchRecentlyPlayed)
    let model = makeModel()
    let load = Task { await model.load() }
    try await gate.waitUntilReached()
    #expect(model.state == .loading)
    #expect(model.tracks.isEmpty)
    gate.open()
    await load.value
    #expect(model.state == .loaded)
  }

  @Test("Latency on the injector's clock holds the load until time advances")
  func latencyOnTheClock() async throws {
    let clock = ManualClock()
    let service = try makeService(clock: clock)
    service.faults[.fetchRecentlyPlayed] = [.delay(.seconds(3))]
    let model = RecentlyPlayedViewModel(service: service, cacheURL: feedURL)
    let load = Task { await model.load() }
    await clock.waitForSleep()
    #expect(model.state == .loading)
    clock.advance(by: .seconds(3))
    await load.value
    #expect(model.state == .loaded)
    #expect(model.tracks.count == 10)
  }

  // MARK: - Failures on the first page

  @Test("A timeout with nothing cached shows the failure and caches nothing")
  func firstPageTimesOut() async throws {
    service.faults[.fetchRecentlyPlayed] = [.fail(.timeout)]
    let model = makeModel()
    await model.load()
    #expect(model.state == .failed("The request timed out."))
    #expect(model.tracks.isEmpty)
    #expect(!model.hasMore)
    #expect(try await storedCache().isEmpty)
  }

  @Test("No connection with nothing cached says so")
  func notConnected() async throws {
    service.faults.failingMethods = [.fetchRecentlyPlayed]
    service.faults.injectedError = InjectedFault.notConnected
    let model = makeModel()
    await model.load()
    #expect(model.state == .failed("The device is not connected to the internet."))
    #expect(
      service.faults.outcomes(.fetchRecentlyPlayed) == [
        .threw("The device is not connected to the internet.")
      ])
  }

  @Test("A retry after a failed first load shows the page")
  func retryAfterFailure() async throws {
    service.faults[.fetchRecentlyPlayed] = [.fail(.server(status: 502), times: 1), .pass()]
    let model = makeModel()
    await model.load()
    #expect(model.state == .failed("The server responded with status 502."))
    await model.load()
    #expect(model.state == .loaded)
    #expect(model.tracks.count == 10)
    #expect(pagesRequested == [1, 1])
  }

  // MARK: - Failures on later pages

  @Test("A server error on page 2 keeps page 1 and ends pagination quietly")
  func secondPageServerError() async throws {
    service.faults[.fetchRecentlyPlayed] = [.pass(times: 1), .fail(.server(status: 503))]
    let model = makeModel()
    await model.load()
    await model.loadMore()
    #expect(model.state == .loaded)
    #expect(model.tracks == Array(service.catalogue.tracks.prefix(10)))
    #expect(!model.hasMore)
    #expect(!model.isLoadingMore)
    #expect(
      service.faults.outcomes(.fetchRecentlyPlayed) == [
        .returned, .threw("The server responded with status 503."),
      ])
  }

  @Test("A failure on page 3 keeps the two pages shown and cached")
  func thirdPageFails() async throws {
    service.faults[.fetchRecentlyPlayed] = [
      .fail(.truncatedResponse, when: { (page: Int) in page == 3 })
    ]
    let model = makeModel()
    await model.load()
    await model.loadMore()
    await model.loadMore()
    #expect(model.state == .loaded)
    #expect(model.tracks == Array(service.catalogue.tracks.prefix(20)))
    #expect(!model.hasMore)
    #expect(try await storedCache().count == 20)
    #expect(pagesRequested == [1, 2, 3])
  }

  @Test("Once a later page was rate limited, loading more asks the service nothing")
  func rateLimitedEndsPagination() async throws {
    service.faults[.fetchRecentlyPlayed] = [
      .pass(times: 1), .fail(.rateLimited(retryAfter: .seconds(30))),
    ]
    let model = makeModel()
    await model.load()
    await model.loadMore()
    await model.loadMore()
    #expect(service.faults.callCount(.fetchRecentlyPlayed) == 2)
    #expect(model.tracks.count == 10)
    #expect(model.state == .loaded)
  }

  // MARK: - Cancellation

  @Test("An injected CancellationError on the first load is not a failure")
  func injectedCancellationOnLoad() async throws {
    service.faults.failingMethods = [.fetchRecentlyPlayed]
    service.faults.injectedError = CancellationError()
    let model = makeModel()
    await model.load()
    #expect(model.state == .idle)
    #expect(model.tracks.isEmpty)
    #expect(try await storedCache().isEmpty)
  }

  @Test("An injected CancellationError on page 2 keeps the list and the offer of more")
  func injectedCancellationOnLoadMore() async throws {
    service.faults[.fetchRecentlyPlayed] = [.pass(times: 1), .fail(CancellationError())]
    let model = makeModel()
    await model.load()
    await model.loadMore()
    #expect(model.state == .loaded)
    #expect(model.tracks.count == 10)
    #expect(model.hasMore)
    #expect(try await storedCache().count == 10)
  }

  @Test("Cancelling a load parked mid-request restores the idle state and caches nothing")
  func cancelParkedLoad() async throws {
    let gate = service.faults.gate(.fetchRecentlyPlayed)
    let model = makeModel()
    let load = Task { await model.load() }
    try await gate.waitUntilReached()
    load.cancel()
    await load.value
    #expect(model.state == .idle)
    #expect(model.tracks.isEmpty)
    #expect(try await storedCache().isEmpty)
    #expect(service.faults.outcomes(.fetchRecentlyPlayed) == [.cancelled])
  }

  @Test("Cancelling a load held by latency costs no time and is not a failure")
  func cancelDelayedLoad() async throws {
    let clock = ManualClock()
    let service = try makeService(clock: clock)
    service.faults[.fetchRecentlyPlayed] = [.delay(.seconds(10))]
    let model = RecentlyPlayedViewModel(service: service, cacheURL: feedURL)
    let load = Task { await model.load() }
    await clock.waitForSleep()
    load.cancel()
    await load.value
    #expect(model.state == .idle)
    #expect(clock.now.offset == .zero)
    #expect(service.faults.outcomes(.fetchRecentlyPlayed) == [.cancelled])
    #expect(try await storedCache().isEmpty)
  }

  @Test("Cancelling a parked page 2 keeps page 1, the cache and the offer of more")
  func cancelParkedLoadMore() async throws {
    let gate = FaultGate()
    service.faults[.fetchRecentlyPlayed] = [.pass(times: 1), .gate(gate)]
    let model = makeModel()
    await model.load()
    let more = Task { await model.loadMore() }
    try await gate.waitUntilReached()
    #expect(model.isLoadingMore)
    more.cancel()
    await more.value
    #expect(!model.isLoadingMore)
    #expect(model.hasMore)
    #expect(model.tracks.count == 10)
    #expect(try await storedCache().count == 10)
  }

  @Test("A page that answers a cancelled task is dropped, not shown or cached")
  func answerAfterCancellationIsDropped() async throws {
    let model = makeModel()
    let load = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      await model.load()
    }
    await load.value
    // The seam let the call through; the model dropped its answer.
    #expect(service.faults.outcomes(.fetchRecentlyPlayed) == [.returned])
    #expect(model.state == .idle)
    #expect(model.tracks.isEmpty)
    #expect(try await storedCache().isEmpty)
  }

  // MARK: - Background refresh

  @Test("A failed background refresh keeps the cached feed on screen and on disk")
  func refreshFailureKeepsCache() async throws {
    let saved = Array(service.catalogue.tracks.suffix(5))
    seedCache(saved)
    service.faults[.fetchRecentlyPlayed] = [.fail(.connectionLost)]
    let model = makeModel()
    await model.load()
    #expect(model.state == .loaded)
    #expect(model.tracks == saved)
    #expect(model.isShowingCachedFeed)
    #expect(!model.isRefreshing)
    #expect(try await storedCache() == saved)
    #expect(
      model.notice
        == "Couldn't refresh recently played. Showing what you saw last time. "
        + "The network connection was lost.")
  }

  @Test("A failed refresh after a successful load keeps the loaded list")
  func refreshFailureAfterLoad() async throws {
    service.faults[.fetchRecentlyPlayed] = [.pass(times: 1), .fail(.server(status: 500))]
    let model = makeModel()
    await model.load()
    await model.load()
    #expect(model.state == .loaded)
    #expect(model.tracks == Array(service.catalogue.tracks.prefix(10)))
    #expect(model.notice?.hasSuffix("The server responded with status 500.") == true)
    model.dismissNotice()
    #expect(model.notice == nil)
  }

  @Test("Content stays on screen while a background refresh is in flight")
  func refreshKeepsContentWhileInFlight() async throws {
    let saved = Array(service.catalogue.tracks.suffix(5))
    seedCache(saved)
    let gate = service.faults.gate(.fetchRecentlyPlayed)
    let model = makeModel()
    let load = Task { await model.load() }
    try await gate.waitUntilReached()
    #expect(model.isRefreshing)
    #expect(model.state == .loaded)
    #expect(model.tracks == saved)
    gate.open()
    await load.value
    #expect(!model.isRefreshing)
  }

  @Test("A cancelled background refresh keeps the cached feed and shows no notice")
  func cancelledRefreshKeepsCache() async throws {
    let saved = Array(service.catalogue.tracks.suffix(5))
    seedCache(saved)
    let gate = service.faults.gate(.fetchRecentlyPlayed)
    let model = makeModel()
    let load = Task { await model.load() }
    try await gate.waitUntilReached()
    load.cancel()
    await load.value
    #expect(model.state == .loaded)
    #expect(model.tracks == saved)
    #expect(model.notice == nil)
    #expect(!model.isRefreshing)
    #expect(try await storedCache() == saved)
  }
}
