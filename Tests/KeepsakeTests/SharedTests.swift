import Foundation
import Observation
import Synchronization
import Testing

@testable import Keepsake

@Suite("Shared")
struct SharedTests {
  @Test("Two Shareds of the same key are one reference")
  func sameKeySameReference() {
    @Shared(.inMemory("count")) var first = 0
    @Shared(.inMemory("count")) var second = 99
    $first.withLock { $0 += 1 }
    #expect(second == 1, "the second default is ignored and the change is seen at once")
    $second.withLock { $0 += 1 }
    #expect(first == 2)
  }

  @Test("Different names are different values")
  func differentKeys() {
    @Shared(.inMemory("a")) var a = 1
    @Shared(.inMemory("b")) var b = 1
    $a.withLock { $0 = 5 }
    #expect(b == 1)
  }

  @Test("Shared(value:) is a reference found by no key")
  func unkeyedValue() {
    let shared = Shared(value: [1, 2])
    let copy = shared
    copy.withLock { $0.append(3) }
    #expect(shared.wrappedValue == [1, 2, 3])
    @Shared(.inMemory(shared.keyID.name)) var other: [Int] = []
    #expect(other.isEmpty)
  }

  @Test("withLock returns the body's result and rethrows its error")
  func withLockResultAndError() {
    @Shared(.inMemory("list")) var list = [1]
    let count = $list.withLock { list -> Int in
      list.append(2)
      return list.count
    }
    #expect(count == 2)
    struct Boom: Error {}
    #expect(throws: Boom.self) { try $list.withLock { _ in throw Boom() } }
  }

  @Test("A SharedReader sees changes but cannot make them")
  func reader() {
    @Shared(.inMemory("flag")) var flag = false
    @SharedReader(.inMemory("flag")) var observed = true
    $flag.withLock { $0 = true }
    #expect(observed)
    #expect($flag.reader.wrappedValue)
  }

  @Test("Observation fires when the value changes")
  func observation() {
    @Shared(.inMemory("observed")) var value = 0
    let fired = Mutex(0)
    withObservationTracking {
      _ = value
    } onChange: {
      fired.withLock { $0 += 1 }
    }
    $value.withLock { $0 = 1 }
    #expect(fired.withLock { $0 } == 1)
  }

  @Test("A value mutated before anyone read it is still observed once read")
  func observationAfterUnreadMutations() {
    @Shared(.inMemory("unread")) var value = 0
    for _ in 0..<3 { $value.withLock { $0 += 1 } }
    let fired = Mutex(0)
    withObservationTracking {
      #expect(value == 3)
    } onChange: {
      fired.withLock { $0 += 1 }
    }
    $value.withLock { $0 += 1 }
    #expect(fired.withLock { $0 } == 1)
  }

  @Test("Observation fires when the file was changed by someone else")
  func observationOfOutsideChange() async throws {
    let url = URL(fileURLWithPath: "/data/observed.json")
    @Shared(.fileStorage(url)) var value = [1]
    let disk = try #require($value.storageContext.fileSystem as? InMemoryFileSystem)
    try await confirmation("onChange") { changed in
      withObservationTracking {
        _ = value
      } onChange: {
        changed()
      }
      disk.setContents(Data("[4,5]".utf8), at: url)
      try await $value.flush()  // runs after the reload the change scheduled
    }
    #expect(value == [4, 5])
  }

  @Test("A reference keeps its storage context in a detached task")
  func detachedTaskWritesToTheTestsStorage() async throws {
    let url = URL(fileURLWithPath: "/detached/value.json")
    @Shared(.fileStorage(url)) var value = 0
    let shared = $value
    let disk = try #require(shared.storageContext.fileSystem as? InMemoryFileSystem)
    // A key made in the task below, where no test is current, is reported at its line.
    let reports = Mutex(0)
    let expectation = UnattributedKeys.expect(fileID: #fileID, line: #line + 8) { _ in
      reports.withLock { $0 += 1 }
    }
    let elsewhere = try await Task.detached { () throws -> StorageContext in
      shared.withLock { $0 = 42 }
      try await shared.flush()
      // A key made here, where no test is current, gets other storage: the captured reference
      // is what keeps the write in the test's own.
      return Shared(.fileStorage(url), default: 0).storageContext
    }.value
    withExtendedLifetime(expectation) {}
    #expect(reports.withLock { $0 } == 1)
    #expect(elsewhere !== shared.storageContext)
    #expect(try disk.contents(of: url) == Data("42".utf8))
    #expect(try elsewhere.fileSystem.contents(of: url) == nil)
  }

  @Test("Equal values make equal Shareds")
  func equatable() {
    let a = Shared(value: 3)
    let b = Shared(value: 3)
    #expect(a == b)
    b.withLock { $0 = 4 }
    #expect(a != b)
  }
}
