import Foundation
import Synchronization
import Testing

@testable import Keepsake

@Suite("Keys made where no test can be found")
struct UnattributedKeysTests {
  @Test("A key made in a detached task under test is reported, naming the key and its line")
  func detachedKeyIsReported() async {
    @Shared(.inMemory("own-key")) var own = 0  // the test runs: its own key is found
    _ = own
    let messages = Mutex<[String]>([])
    let line: UInt = #line + 5
    let expectation = UnattributedKeys.expect(fileID: #fileID, line: line) { message in
      messages.withLock { $0.append(message) }
    }
    await Task.detached {
      @Shared(.inMemory("leaked-count")) var count = 0
      _ = count
    }.value
    withExtendedLifetime(expectation) {}
    let reported = messages.withLock { $0 }
    #expect(reported.count == 1)
    #expect(
      reported.first?.hasPrefix(
        "The key inMemory(leaked-count) was made at KeepsakeTests/UnattributedKeysTests.swift:"
          + "\(line) while tests run, where no test can be found") == true)
  }

  @Test("A key made in the test's own task is not reported")
  func attributedKeyIsNotReported() {
    let messages = Mutex<[String]>([])
    let line: UInt = #line + 3
    let expectation = UnattributedKeys.expect(fileID: #fileID, line: line) { message in
      messages.withLock { $0.append(message) }
    }
    @Shared(.inMemory("own-count")) var count = 0
    _ = count
    withExtendedLifetime(expectation) {}
    #expect(messages.withLock { $0 }.isEmpty)
  }

  @Test("Before any test started (a hosted app's launch), nothing is reported")
  func beforeTestsStart() {
    let messages = Mutex<[String]>([])
    let site = CallSite(fileID: #fileID, filePath: #filePath, line: 1, column: 1)
    let expectation = UnattributedKeys.expect(fileID: #fileID, line: 1) { message in
      messages.withLock { $0.append(message) }
    }
    UnattributedKeys.report(SharedKeyID(kind: "inMemory", name: "x"), at: site, testsStarted: false)
    #expect(messages.withLock { $0 }.isEmpty)
    UnattributedKeys.report(SharedKeyID(kind: "inMemory", name: "x"), at: site, testsStarted: true)
    #expect(messages.withLock { $0 }.count == 1)
    withExtendedLifetime(expectation) {}
  }

  @Test("A waiting report fails the test that takes it, at the line that made the key")
  func pendingReportFailsATest() {
    let site = CallSite(fileID: #fileID, filePath: #filePath, line: 4_242, column: 7)
    let message = UnattributedKeys.message(
      SharedKeyID(kind: "inMemory", name: "from-a-thread"), at: site)
    withKnownIssue {
      UnattributedKeys.recordIssues([(message, site)])
    } matching: { issue in
      issue.sourceLocation?.line == 4_242
        && String(describing: issue).contains("inMemory(from-a-thread)")
    }
  }
}
