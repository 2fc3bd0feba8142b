import Observation

/// Suspends until `condition` holds, checking it again each time an observable value it reads
/// changes; returns whether it held within `timeout`.
///
/// For a change that arrives on its own: a `SharedReader` that loads in the background, a
/// save error, a value another process wrote. Every `Shared`'s value, `isLoading`, `loadError`
/// and `saveError` is observable, so the wait wakes at the change itself (and, for a change made
/// in the instant the observation is being installed, which Observation cannot hear, at a look
/// every 100 ms):
///
/// ```swift
/// @SharedReader(.catalogue) var catalogue = Catalogue.empty
/// #expect(await waitUntil { !$catalogue.isLoading })
/// #expect(catalogue.tracks.count == 40)
/// ```
///
/// `timeout` is not a speed requirement: it turns a change that never comes into a failure
/// instead of a test that never ends, so make it generous.
///
/// > Important: Only what the Observation framework tracks wakes the wait at once; a condition
/// > on anything else (a counter in a `Mutex`, a file on disk) is seen only by the look every
/// > 100 ms.
///
/// - Parameters:
///   - timeout: How long to wait at most.
///   - condition: What to wait for; it reads only observable state.
/// - Returns: Whether `condition` held before `timeout` passed.
@discardableResult
public func waitUntil(
  timeout: Duration = .seconds(10),
  _ condition: @escaping @Sendable () -> Bool
) async -> Bool {
  if condition() { return true }
  return await withTaskGroup(of: Bool.self) { group in
    group.addTask {
      if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
        // NB: a closure literal, not `condition` itself: `Observations` takes an
        // `@isolated(any)` closure, and the function value converted to one was measured never
        // to emit a change.
        for await holds in Observations({ condition() }) where holds { return true }
        return false
      } else {
        // NB: before `Observations` (Apple platforms before 2025) there is no way to hear a
        // change after it is stored (`withObservationTracking` calls back before), so the
        // condition is checked every few milliseconds there.
        while !Task.isCancelled {
          if condition() { return true }
          try? await Task.sleep(for: .milliseconds(5))
        }
        return false
      }
    }
    group.addTask {
      // NB: Observation registers its observer after the condition's read, so a change made
      // in between is never heard: the condition is also looked at now and then.
      while !Task.isCancelled {
        try? await Task.sleep(for: .milliseconds(100))
        if condition() { return true }
      }
      return false
    }
    group.addTask {
      await RunnableTime.sleep(for: timeout)
      return condition()
    }
    let held = await group.next() ?? false
    group.cancelAll()
    return held
  }
}
