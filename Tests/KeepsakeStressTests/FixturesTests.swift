import Foundation
import KeepsakeStress
import Testing

@Suite("Embedded fixtures")
struct FixturesTests {
  static let folder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("DraftsTests/Fixtures")

  @Test("The embedded fixtures are byte-identical to the golden files", arguments: Fixtures.all)
  func identical(_ fixture: Fixtures.Fixture) throws {
    let golden = try Data(contentsOf: Self.folder.appendingPathComponent(fixture.name))
    #expect(fixture.bytes == golden)
  }

  @Test("Every golden drafts fixture is embedded")
  func complete() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
      .filter { $0.hasPrefix("drafts-") && $0.hasSuffix(".json") && !$0.contains(".shape.") }
    #expect(Set(names) == Set(Fixtures.all.map(\.name)))
  }
}
