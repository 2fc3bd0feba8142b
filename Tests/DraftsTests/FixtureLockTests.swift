import Foundation
import KeepsakeTesting
import Testing

@Suite("Golden fixture lock")
struct FixtureLockTests {
  static var fixtures: URL { FormatFixtures.sourceFolder() }

  @Test("No golden fixture has been edited, removed or added without its lock line")
  func fixturesMatchTheLock() {
    FixtureLock.expectUnchanged(in: Self.fixtures)
  }

  @Test("The bundled fixtures are the locked ones")
  func bundleMatchesTheLock() throws {
    let lock = try #require(
      Bundle.module.url(forResource: "fixtures", withExtension: "lock", subdirectory: "Fixtures"))
    #expect(FixtureLock.problems(in: lock.deletingLastPathComponent()).isEmpty)
  }

  @Test("An edited fixture fails with the reason fixtures are never edited")
  func editedFixtureFails() throws {
    let folder = try TemporaryFolder()
    let directory = folder.url
    try Data("[]".utf8).write(to: directory.appending(path: "x-v1.json"))
    let hash = "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"
    try Data("\(hash)  x-v1.json\n".utf8).write(to: directory.appending(path: "fixtures.lock"))
    #expect(FixtureLock.problems(in: directory).isEmpty)

    try Data("[ ]".utf8).write(to: directory.appending(path: "x-v1.json"))
    let problems = FixtureLock.problems(in: directory)
    #expect(problems.count == 1)
    #expect(problems.first?.hasPrefix("Fixture x-v1.json was edited: its SHA-256 is ") == true)
    #expect(problems.first?.contains("Never edit one to make a test pass") == true)
    #expect(problems.first?.contains("add a NEW fixture") == true)
  }

  @Test("A fixture missing from the lock fails with the line to add")
  func unlockedFixtureFails() throws {
    let folder = try TemporaryFolder()
    let directory = folder.url
    try Data().write(to: directory.appending(path: "fixtures.lock"))
    try Data("[]".utf8).write(to: directory.appending(path: "x-v2.json"))
    let problems = FixtureLock.problems(in: directory)
    #expect(
      problems.first?.hasPrefix(
        "Fixture x-v2.json is not in fixtures.lock. Add this line:\n"
          + "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945  x-v2.json") == true)
  }
}
