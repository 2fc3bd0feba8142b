import Foundation
import KeepsakeTesting
import Testing

@Suite("Temporary folders")
struct TemporaryFolderTests {
  @Test("A temporary folder exists, is empty and is removed with everything in it when released")
  func removedWhenReleased() throws {
    var folder: TemporaryFolder? = try TemporaryFolder()
    let url = try #require(folder?.url)
    #expect(folder?.names == [])
    try Data("[]".utf8).write(to: #require(folder?.file("notes.json")))
    #expect(folder?.names == ["notes.json"])
    folder = nil
    #expect(!FileManager.default.fileExists(atPath: url.path))
  }

  @Test("Two temporary folders never share a path")
  func distinct() throws {
    let first = try TemporaryFolder()
    let second = try TemporaryFolder()
    #expect(first.url != second.url)
  }
}
