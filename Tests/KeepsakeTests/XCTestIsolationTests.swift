import Foundation
import Keepsake
import XCTest

/// XCTest cases get storage of their own too, with nothing to set up.
///
/// Both tests write the same keys and expect to start from the defaults, so whichever runs second
/// fails if storage leaks.
final class XCTestIsolationTests: XCTestCase {
  func testFirstCaseStartsFresh() async throws {
    try await writeAndCheck(1)
  }

  func testSecondCaseStartsFresh() async throws {
    try await writeAndCheck(2)
  }

  func testStorageIsEphemeral() {
    XCTAssertTrue(StorageContext.current.isEphemeral)
    XCTAssertTrue(StorageContext.current.fileSystem is InMemoryFileSystem)
  }

  private func writeAndCheck(_ value: Int) async throws {
    @Shared(.inMemory("xctest")) var memory = 0
    @Shared(.fileStorage(URL(fileURLWithPath: "/xctest/value.json"))) var file = 0
    @Shared(.appStorage("xctest")) var preference = 0
    XCTAssertEqual(memory, 0)
    XCTAssertEqual(file, 0)
    XCTAssertEqual(preference, 0)
    $memory.withLock { $0 = value }
    $file.withLock { $0 = value }
    $preference.withLock { $0 = value }
    try await $file.save()
    XCTAssertEqual(file, value)
  }
}
