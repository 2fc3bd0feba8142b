import Foundation
import KeepsakeStore
import KeepsakeTesting
import Synchronization
import Testing

/// A dependency without a test value, read by a test that did not set it, fails the test.
@MainActor
@Suite("Dependencies: unset under test")
struct UnimplementedDependencyTests {
  @Test("Read by the reducer, it fails the send, naming the dependency and its declaration")
  func readByTheReducer() async {
    let store = TestStore(initialState: Player.State()) { Player() }

    await withKnownIssue {
      await store.send(.playTapped) { $0.title = "live radio" }
    } matching: { issue in
      message(of: issue) == """
        @Dependency(\\.musicService) (MusicServiceKey, MusicService) was read under test, but \
        the test did not set it and MusicServiceKey has no `testValue`. Set it for the test \
        (`withDependencies { $0.musicService = ... }`, or \
        `TestStore(initialState:reducer:withDependencies:)`), or give MusicServiceKey a \
        `testValue`. The live value is used meanwhile.

        Read through the @Dependency declared at KeepsakeStoreTests/Player.swift:41.
        """
    }
  }

  @Test("Read by an effect, it fails the next step")
  func readByAnEffect() async {
    let store = TestStore(initialState: Player.State()) { Player() }
    await store.send(.playLaterTapped)

    await withKnownIssue {
      await store.receive(.playing("live radio")) { $0.title = "live radio" }
    } matching: { issue in
      message(of: issue).hasPrefix("@Dependency(\\.musicService) (MusicServiceKey")
    }
    await store.finish()
  }

  @Test("Read in a detached task an effect started, it fails the next step")
  func readInADetachedTask() async {
    let store = TestStore(initialState: Player.State()) { Player() }
    await store.send(.playDetachedTapped)

    await withKnownIssue {
      await store.receive(.playing("live radio")) { $0.title = "live radio" }
    } matching: { issue in
      message(of: issue).hasPrefix("@Dependency(\\.musicService) (MusicServiceKey")
    }
    await store.finish()
  }

  @Test("Read outside a test store, it fails the test at once")
  func readOutsideATestStore() {
    withKnownIssue {
      @Dependency(\.musicService) var music
      _ = music.nowPlaying()
    } matching: { issue in
      message(of: issue).hasPrefix("@Dependency(\\.musicService) (MusicServiceKey")
        && message(of: issue).contains("UnimplementedDependencyTests.swift:")
    }
  }

  @Test("It fails once per store, however often it is read")
  func failsOncePerStore() async {
    let failures = Counter()
    let store = TestStore(initialState: Player.State()) { Player() }

    await withKnownIssue {
      await store.send(.playTapped) { $0.title = "live radio" }
      await store.send(.playTapped)
    } matching: { issue in
      failures.increment()
      return message(of: issue).contains("musicService")
    }
    #expect(failures.value == 1)
  }

  @Test("Once the test sets it, nothing fails")
  func setByTheTest() async {
    let store = TestStore(initialState: Player.State()) {
      Player()
    } withDependencies: {
      $0.musicService = MockMusicService(title: "test song")
    }

    await store.send(.playTapped) { $0.title = "test song" }
    await store.send(.playDetachedTapped)
    await store.receive(.playing("test song"))
    await store.finish()
  }
}

/// Counts from a `@Sendable` closure.
private final class Counter: Sendable {
  private let count = Mutex(0)
  var value: Int { count.withLock { $0 } }
  func increment() { count.withLock { $0 += 1 } }
}
