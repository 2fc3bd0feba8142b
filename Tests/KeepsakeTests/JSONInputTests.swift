import DraftsFeature
import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

/// Regression tests for input that crashes `JSONDecoder`: 513 unclosed `[` and nothing else.
///
/// Found by the corruption fuzz. Each test would kill the whole test process if the guard were
/// missing.
@Suite("JSON input that crashes JSONDecoder")
struct JSONInputTests {
  static let crasher = Data(String(repeating: "[", count: 513).utf8)
  let url = URL(fileURLWithPath: "/data/deep.json")

  @Test("A plain JSON file key reports it as unreadable and leaves it untouched")
  func plainFileKey() async throws {
    let disk = try #require(StorageContext.current.fileSystem as? InMemoryFileSystem)
    disk.setContents(Self.crasher, at: url)
    @Shared(.fileStorage(url)) var numbers: [Int] = []
    #expect($numbers.loadError != nil)
    $numbers.withLock { $0 = [1] }
    await #expect(throws: SharedSaveError.self) { try await $numbers.flush() }
    #expect(try disk.contents(of: url) == Self.crasher)
  }

  @Test("A versioned format refuses it as not JSON")
  func versionedFormat() {
    #expect {
      try DraftsFormat.decode(Self.crasher)
    } throws: { error in
      guard case .notJSON? = error as? FormatError else { return false }
      return true
    }
  }

  @Test("A preferences suite file of it is reported and never overwritten")
  func preferencesSuite() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    try Self.crasher.write(to: url)
    let store = FilePreferences(url: url)
    store.set(.bool(true), forKey: "flag")
    #expect(throws: PreferencesError.self) { try store.flush() }
    #expect(try Data(contentsOf: url) == Self.crasher)
  }

  @Test("A Codable preference holding it reads as a wrong-type value")
  func codablePreference() {
    struct Layout: Codable, Sendable { var columns: Int }
    StorageContext.current.preferences(suiteName: nil).set(.data(Self.crasher), forKey: "layout")
    @Shared(.appStorage("layout")) var layout = Layout(columns: 1)
    #expect($layout.loadError != nil)
  }
}
