import DraftsFeature
import Foundation
import Keepsake
import Testing

@Suite("drafts add")
struct DraftsAddCommandTests {
  let store = URL(fileURLWithPath: "/home/someone/.local/share/keepsake-drafts/drafts.json")

  func run(_ arguments: String...) async throws(DraftsError) -> String {
    try await DraftsCommand.parse(["--store", store.path] + arguments, environment: [:]).run()
  }

  @Test("add prints the short ID of the draft it added, a random one even under test")
  func addPrintsTheNewDraftsID() async throws {
    @Shared(.drafts(at: store)) var drafts = []
    $drafts.withLock { $0 = [Draft(id: UUID(0), body: "already there")] }

    let first = try await run("add", "one")
    let second = try await run("add", "two")

    let added = drafts.filter { $0.body != "already there" }
    #expect(added.map(\.body) == ["one", "two"])
    #expect(first == "Added \(shortID(added[0].id)).")
    #expect(second == "Added \(shortID(added[1].id)).")
    // The program passes the live generator: not the test's UUID(0), UUID(1), ...
    #expect(!added.map(\.id).contains { $0.uuidString.hasPrefix("00000000-0000-0000-0000-") })
  }

  private func shortID(_ id: UUID) -> String {
    String(id.uuidString.lowercased().prefix(8))
  }
}
