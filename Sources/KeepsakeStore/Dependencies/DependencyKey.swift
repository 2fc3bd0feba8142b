/// Declares a dependency: its type, the value an app uses, and the value a test uses.
///
/// Declare a key, then a property of ``DependencyValues`` that reads and writes it, so features
/// can write `@Dependency(\.musicService) var musicService`:
///
/// ```swift
/// enum MusicServiceKey: DependencyKey {
///   static let liveValue: any MusicService = RemoteMusicService()
///   static let testValue: any MusicService = MockMusicService()
/// }
///
/// extension DependencyValues {
///   nonisolated var musicService: any MusicService {
///     get { self[MusicServiceKey.self] }
///     set { self[MusicServiceKey.self] = newValue }
///   }
/// }
/// ```
///
/// When the process runs tests (detected the way `Keepsake` gives each test its own storage),
/// a dependency the test did not set resolves to ``testValue``; in an Xcode preview to
/// ``previewValue``, which is ``liveValue`` unless the key gives one; otherwise to ``liveValue``.
/// Leave ``testValue`` out and a test that reaches the dependency without setting it fails,
/// naming the key and where it was read: the live value is never used silently under test.
/// A default value is made once per ``DependencyValues`` scope root (once per app process, once
/// per test, once per `TestStore`) and then reused, so an incrementing generator counts on.
///
/// The protocol refines `SendableMetatype`: its conformances are never isolated to an actor, so
/// a key declared in a module built with `.defaultIsolation(MainActor.self)` still resolves from
/// any executor. Its requirements are nonisolated and its values `Sendable`.
///
/// > Important: In a module built with `.defaultIsolation(MainActor.self)`, mark the
/// > ``DependencyValues`` property `nonisolated`, as above. Otherwise it is isolated to the main
/// > actor, and `@Dependency(\.musicService)` does not compile (its key path is not `Sendable`).
public protocol DependencyKey: SendableMetatype {
  /// The type of the dependency.
  associatedtype Value: Sendable

  /// The value used when the process does not run tests.
  static var liveValue: Value { get }

  /// The value used in an Xcode preview when nothing set one: ``liveValue`` unless the key gives
  /// its own.
  ///
  /// A preview is not a test: its storage is in memory, but it shows the app as it runs, with
  /// today's date, random UUIDs and real clocks. Give a preview value for a service a preview
  /// should not reach for real, such as a network client:
  ///
  /// ```swift
  /// enum MusicServiceKey: DependencyKey {
  ///   static let liveValue: any MusicService = RemoteMusicService()
  ///   static let previewValue: any MusicService = MockMusicService(delay: .milliseconds(300))
  ///   static let testValue: any MusicService = MockMusicService()
  /// }
  /// ```
  static var previewValue: Value { get }

  /// The value used under test when the test did not set one.
  ///
  /// Give one when a deterministic default exists (an incrementing generator, a constant date).
  /// Without it, reading the dependency under test without setting it reports a test failure
  /// that names the key, then uses ``liveValue`` so the code under test can go on.
  static var testValue: Value { get }
}

extension DependencyKey {
  /// The live value: a preview shows the app as it runs.
  public static var previewValue: Value { liveValue }

  /// No test value: reading the dependency under test without setting it fails the test.
  ///
  /// Reports a test failure naming the key (see ``DependencyKey``), then returns ``liveValue``.
  public static var testValue: Value {
    Unimplemented.report(key: Self.self, valueType: Value.self)
    return liveValue
  }
}
