import Foundation
import KeepsakeStress
import KeepsakeTesting
import Testing

/// The two silent losses a review found in the persistence core, each run for real: separate
/// processes on the real disk, driven step by step from the lines the child prints (data-safety
/// rules "A file Keepsake cannot read is never overwritten" and "Processes that share a file
/// lose nothing", and the transaction's all-or-nothing promise, DataSafety.md).
@Suite("Loss scenarios, run for real")
struct LossScenarioTests {
  func write(_ items: [ScenarioItem], to url: URL) throws {
    try JSONEncoder().encode(items).write(to: url)
  }

  func stored(at url: URL) throws -> [String] {
    try JSONDecoder().decode([ScenarioItem].self, from: Data(contentsOf: url)).map(\.id)
  }

  @Test(
    "A change pending while another program rewrites the file in place is merged, not dropped",
    .timeLimit(.minutes(5)))
  func inPlaceRewrite() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("items.json")
    try write([ScenarioItem("a")], to: url)
    let child = try ChildProcess(
      executable: stressExecutable, arguments: ["in-place-rewrite", url.path])
    #expect(child.readLine() == "changed")
    // The other program rewrites in place, as `: > f; printf '...' > f` does: truncated first,
    // then written, the same inode throughout.
    let truncating = try FileHandle(forWritingTo: url)
    try truncating.truncate(atOffset: 0)
    try truncating.close()
    #expect(child.readLine() == "protected", "the empty file cannot be read")
    let writing = try FileHandle(forWritingTo: url)
    try writing.write(
      contentsOf: JSONEncoder().encode([ScenarioItem("a"), ScenarioItem("theirs-1")]))
    try writing.close()
    let lines = child.readRemainingLines()
    #expect(child.wait().succeeded, "\(lines)")
    let reported = try #require(lines.last)
    #expect(reported.hasPrefix("value "), "\(lines)")
    #expect(
      Set(reported.dropFirst(6).prefix { $0 != " " }.split(separator: ",").map(String.init)) == [
        "a", "ours-1", "theirs-1",
      ])
    #expect(Set(try stored(at: url)) == ["a", "ours-1", "theirs-1"])
  }

  @Test(
    "A transaction that awaits is never seen half done, and a kill leaves the file as it was",
    .timeLimit(.minutes(5)))
  func killedTransaction() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("items.json")
    try write([ScenarioItem("x", text: "original"), ScenarioItem("y")], to: url)
    let child = try ChildProcess(
      executable: stressExecutable, arguments: ["killed-transaction", url.path])
    #expect(child.readLine() == "halfway")
    #expect(try stored(at: url) == ["x", "y"], "another process sees the file whole")
    child.kill()
    child.wait()
    #expect(try stored(at: url) == ["x", "y"], "the killed transaction left nothing")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
    #expect(names.filter { $0.contains("keepsake-tmp") }.isEmpty)
  }
}
