/// Waits until `condition` holds, for state that only the kernel's file notifications change:
/// what a folder watcher's callbacks counted, which folders it watches now.
///
/// NB: the one polling loop of this target, kept on purpose. A watcher's callback and its set of
/// watched folders change on the watcher's own thread, when inotify (or the Dispatch source)
/// reports, and nothing observable says so; every other wait here awaits its event itself
/// (`waitUntil` for observable state, a continuation or a stream for a callback). The bound
/// turns a notification that never comes into a failure instead of a run that never ends; it
/// is generous because it is not a speed requirement.
///
/// - Returns: Whether `condition` held within `timeout`.
func afterKernelEvents(
  timeout: Duration = .seconds(10), until condition: () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now + timeout
  while !condition() {
    if ContinuousClock.now >= deadline { return false }
    try? await Task.sleep(for: .milliseconds(5))
  }
  return true
}
