import DraftsFeature
import Foundation
import Keepsake
import Testing

/// Many `drafts` programs at once against one store, as a script running them in parallel: every
/// acknowledged command is in the file at the end (data-safety rule "Processes that share a file
/// lose nothing", DataSafety.md).
@Suite("drafts programs running at once")
struct ConcurrentCommandsTests {
  @Test("Parallel adds, edits and pins of one store lose nothing")
  func parallelCommandsLoseNothing() throws {
    let temporary = try DraftsProcess.home()
    let folder = temporary.url
    let store = folder.appendingPathComponent("drafts.json")
    let seeded = (0..<8).map { Draft(id: UUID(), body: "seed \($0)") }
    try DraftsFormat.encode(seeded).write(to: store)

    let commands: [[String]] =
      (1...16).map { ["add", "added \($0)"] }
      + seeded.map { ["edit", String($0.id.uuidString.prefix(8)), "edited"] }
      + seeded.prefix(4).map { ["pin", String($0.id.uuidString.prefix(8))] }
    let runs = Runs(count: commands.count)
    DispatchQueue.concurrentPerform(iterations: commands.count) { index in
      runs.set(
        index, try? DraftsProcess.run(["--store", store.path] + commands[index], home: folder))
    }

    for (index, run) in runs.all.enumerated() {
      #expect(
        run?.exitCode == 0, "drafts \(commands[index]): \(run?.standardError ?? "did not run")")
    }
    let drafts = try DraftsFormat.decode(Data(contentsOf: store))
    #expect(drafts.count == 24)
    #expect(drafts.filter { $0.body.hasPrefix("added ") }.count == 16)
    #expect(Set(drafts.filter { $0.body == "edited" }.map(\.id)) == Set(seeded.map(\.id)))
    #expect(drafts.filter(\.pinned).count == 4)
  }

  /// The results of runs made on several threads at once.
  final class Runs: @unchecked Sendable {
    // NB: every slot is written by exactly one iteration, and read after all of them ended.
    private var runs: [DraftsProcess.Run?]
    private let lock = NSLock()
    init(count: Int) { runs = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ run: DraftsProcess.Run?) {
      lock.withLock { runs[index] = run }
    }
    var all: [DraftsProcess.Run?] { lock.withLock { runs } }
  }
}
