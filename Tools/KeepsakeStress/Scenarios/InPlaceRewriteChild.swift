import Foundation
import Keepsake

/// The process of the in-place rewrite scenario (issue: "A pending change is dropped when another
/// program rewrites the file in place").
///
/// It appends `ours-1` to the list in its file and leaves the change pending (its coalesced save
/// is an hour away). The parent then rewrites the file the way shells and many editors do:
/// truncated first (this process's watch sees an empty file, which it cannot read: the key
/// becomes protected), then written whole (readable again). The child reports each change of its
/// state on a line of its own, and once its value holds the other program's element it ends,
/// through the exit flush.
public enum InPlaceRewriteChild {
  /// Runs the scenario on `url`; the parent drives the rewrite from the lines printed.
  public static func run(url: URL) async -> Int32 {
    @Shared(.fileStorage(url, saveInterval: .seconds(3_600))) var items: [ScenarioItem] = []
    $items.withLock { $0.append(ScenarioItem("ours-1")) }
    StandardOutput.write("changed")
    var sawProtected = false
    // NB: polled, not observed, to keep the child short; the parent bounds the whole run.
    while !(sawProtected && $items.loadError == nil && items.contains { $0.id == "theirs-1" }) {
      if !sawProtected, $items.loadError != nil {
        sawProtected = true
        StandardOutput.write("protected")
      }
      try? await Task.sleep(for: .milliseconds(2))
    }
    do {
      try await $items.flush()
    } catch {
      StandardOutput.write("flush failed: \(error)")
      return 1
    }
    let conflict = $items.lastConflict.map { "\($0.resolution)" } ?? "none"
    StandardOutput.write("value \(items.map(\.id).joined(separator: ",")) conflict \(conflict)")
    return 0
  }
}
