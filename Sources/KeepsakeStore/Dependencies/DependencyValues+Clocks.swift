extension DependencyValues {
  /// The clock to measure and wait with, one that keeps running while the device sleeps:
  /// `ContinuousClock` in an app, a manual clock under test.
  ///
  /// ```swift
  /// @Dependency(\.continuousClock) var clock
  ///
  /// return .run { send in
  ///   try await clock.sleep(for: .seconds(1))
  ///   await send(.timerTicked)
  /// }
  /// ```
  ///
  /// Under test it is FaultInjection's `ManualClock`, made fresh for each test and each test
  /// store; time only moves when the test advances it, so nothing sleeps for real. Give the
  /// test its own clock to advance it:
  ///
  /// ```swift
  /// let clock = ManualClock()
  /// let store = TestStore(initialState: Timer.State()) { Timer() } withDependencies: {
  ///   $0.continuousClock = clock
  /// }
  /// clock.advance(by: .seconds(1))
  /// ```
  public var continuousClock: any Clock<Duration> {
    get { self[ContinuousClockKey.self] }
    set { self[ContinuousClockKey.self] = newValue }
  }

  /// The clock to wait with, one that stops while the device sleeps: `SuspendingClock` in an
  /// app, a manual clock under test (see ``continuousClock``).
  public var suspendingClock: any Clock<Duration> {
    get { self[SuspendingClockKey.self] }
    set { self[SuspendingClockKey.self] = newValue }
  }
}

private enum ContinuousClockKey: DependencyKey {
  static var liveValue: any Clock<Duration> { ContinuousClock() }
  static var testValue: any Clock<Duration> { manualClock(for: Self.self) }
}

private enum SuspendingClockKey: DependencyKey {
  static var liveValue: any Clock<Duration> { SuspendingClock() }
  static var testValue: any Clock<Duration> { manualClock(for: Self.self) }
}

/// A manual clock from `KeepsakeTesting`, which may use FaultInjection (this module may not).
private func manualClock<Key: DependencyKey>(for key: Key.Type) -> any Clock<Duration>
where Key.Value == any Clock<Duration> {
  if let support = TestSupport.installed { return support.makeManualClock() }
  Unimplemented.report(
    key: key, valueType: Key.Value.self,
    reason: "the test did not set it and its test value, a manual clock, comes from "
      + "KeepsakeTesting, which this test target does not link.")
  return key.liveValue
}
