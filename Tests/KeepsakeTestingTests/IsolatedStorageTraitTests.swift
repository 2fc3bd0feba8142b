import Keepsake
import KeepsakeTesting
import Synchronization
import Testing

@Suite("Isolation, run twice", .isolatedStorage)
struct IsolatedStorageTraitTests {
  /// The same test body, run twice in one process as a repeated suite would: the trait gives
  /// each run fresh storage.
  @Test("A repeated run starts from fresh storage")
  func repeatedRun() async throws {
    let test = try #require(Test.current)
    let seen = Mutex<[Int]>([])
    // The trait's scope, entered twice for the same test, as a repeated run enters it.
    for _ in 0..<2 {
      try await IsolatedStorageTrait.isolatedStorage.provideScope(
        for: test, testCase: Test.Case.current
      ) {
        @Shared(.inMemory("run")) var runs = 0
        seen.withLock { $0.append(runs) }
        $runs.withLock { $0 += 1 }
      }
    }
    #expect(seen.withLock { $0 } == [0, 0])
  }
}
