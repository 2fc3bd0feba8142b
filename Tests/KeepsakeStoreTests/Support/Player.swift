import KeepsakeStore

/// A service an app declares for itself, with no value for tests.
protocol MusicService: Sendable {
  func nowPlaying() -> String
}

struct LiveMusicService: MusicService {
  func nowPlaying() -> String { "live radio" }
}

struct MockMusicService: MusicService {
  var title = "mock song"
  func nowPlaying() -> String { title }
}

enum MusicServiceKey: DependencyKey {
  static let liveValue: any MusicService = LiveMusicService()
}

extension DependencyValues {
  var musicService: any MusicService {
    get { self[MusicServiceKey.self] }
    set { self[MusicServiceKey.self] = newValue }
  }
}

/// Reads the music service in its reducer, in an effect, and in a detached task.
struct Player: Reducer {
  struct State: Equatable {
    var title: String?
  }

  enum Action: Equatable, Sendable {
    case playTapped
    case playLaterTapped
    case playDetachedTapped
    case playing(String)
  }

  @Dependency(\.musicService) var music

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .playTapped:
      state.title = music.nowPlaying()
      return .none
    case .playLaterTapped:
      return .run { send in await send(.playing(music.nowPlaying())) }
    case .playDetachedTapped:
      return .run { send in
        let title = await Task.detached { music.nowPlaying() }.value
        await send(.playing(title))
      }
    case .playing(let title):
      state.title = title
      return .none
    }
  }
}
