import Foundation
import Keepsake
import Synchronization
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

  func testStorageIsIsolated() {
    XCTAssertTrue(StorageContext.current.isIsolated)
    XCTAssertTrue(StorageContext.current.fileSystem is InMemoryFileSystem)
  }

  #if !canImport(Darwin)
    /// The same suite, run twice in this process: each run of its test starts from fresh
    /// storage, and the test that ran them keeps its own.
    func testASuiteRunTwiceStartsFreshEachTime() {
      @Shared(.inMemory("outer")) var outer = 0
      $outer.withLock { $0 = 7 }
      let seen = Mutex<[Int]>([])
      let probe: XCTestCaseClosure = { _ in
        @Shared(.inMemory("twice")) var runs = 0
        seen.withLock { $0.append(runs) }
        $runs.withLock { $0 += 1 }
      }
      for _ in 0..<2 {
        let suite = XCTestSuite(name: "Run twice")
        suite.addTest(XCTestCase(name: "probe", testClosure: probe))
        suite.run()
      }
      XCTAssertEqual(seen.withLock { $0 }, [0, 0])
      @Shared(.inMemory("outer")) var outerAgain = 0
      XCTAssertEqual(outerAgain, 7)
    }
  #endif

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
